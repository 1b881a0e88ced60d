//! [`keep_first_along_lines`]: segments that overlap along one line, every
//! shared stretch kept by the first of them only.

use glam::DVec2;
use std::cmp::Ordering;
use std::collections::BTreeSet;

/// Points along one line in order: by `x`, then `y`.
fn along(p: &DVec2, q: &DVec2) -> Ordering {
    p.x.total_cmp(&q.x).then(p.y.total_cmp(&q.y))
}

/// For segments `segs`, joined in the union-find forest `parent` (each
/// entry its parent, roots their own) wherever two share a stretch of positive length
/// (and so lie exactly on one line), what each joined one keeps: every
/// stretch covered by several goes to the lowest index. Returns, for each
/// segment joined to another (ascending), the runs it keeps, in its own
/// direction, each holding every end of the other segments of its line
/// that lies along it. Work `O(n log n)`, however many overlap one another.
pub fn keep_first_along_lines(
    segs: &[(DVec2, DVec2)],
    mut parent: Vec<u32>,
) -> Vec<(u32, Vec<Vec<DVec2>>)> {
    let mut groups: Vec<(u32, u32)> = Vec::new();
    let mut joined = vec![false; parent.len()];
    for id in 0..parent.len() as u32 {
        let root = super::find(&mut parent, id);
        if root != id {
            groups.push((root, id));
            joined[root as usize] = true;
        }
    }
    groups.extend(
        (0..parent.len() as u32)
            .filter(|&r| joined[r as usize])
            .map(|r| (r, r)),
    );
    groups.sort_unstable();
    let mut out = Vec::with_capacity(groups.len());
    for group in groups.chunk_by(|a, b| a.0 == b.0) {
        let members: Vec<u32> = group.iter().map(|e| e.1).collect();
        out.extend(one_line(segs, &members));
    }
    out.sort_unstable_by_key(|e| e.0);
    out
}

/// [`keep_first_along_lines`] for the segments `members` (ascending) of one
/// line.
fn one_line(segs: &[(DVec2, DVec2)], members: &[u32]) -> Vec<(u32, Vec<Vec<DVec2>>)> {
    let mut stops: Vec<DVec2> = (members.iter())
        .flat_map(|&m| [segs[m as usize].0, segs[m as usize].1])
        .collect();
    stops.sort_unstable_by(along);
    stops.dedup();
    let at = |p: &DVec2| stops.binary_search_by(|q| along(q, p)).unwrap_or(0);
    // (stop, starts there, member): ends before starts at one stop.
    let mut events: Vec<(usize, bool, u32)> = Vec::with_capacity(2 * members.len());
    for (k, &m) in members.iter().enumerate() {
        let (p, q) = segs[m as usize];
        let (lo, hi) = if along(&p, &q).is_le() {
            (p, q)
        } else {
            (q, p)
        };
        events.push((at(&lo), true, k as u32));
        events.push((at(&hi), false, k as u32));
    }
    events.sort_unstable();
    // Each piece between consecutive stops goes to the first member over it.
    let mut runs: Vec<Vec<Vec<DVec2>>> = vec![Vec::new(); members.len()];
    let mut active: BTreeSet<u32> = BTreeSet::new();
    let mut e = 0;
    for j in 0..stops.len().saturating_sub(1) {
        while e < events.len() && events[e].0 == j {
            let (_, start, k) = events[e];
            if start {
                active.insert(k);
            } else {
                active.remove(&k);
            }
            e += 1;
        }
        let Some(&owner) = active.first() else {
            continue;
        };
        let mine = &mut runs[owner as usize];
        match mine.last_mut() {
            Some(run) if run.last() == Some(&stops[j]) => run.push(stops[j + 1]),
            _ => mine.push(vec![stops[j], stops[j + 1]]),
        }
    }
    (members.iter().zip(runs))
        .map(|(&m, mut r)| {
            let (p, q) = segs[m as usize];
            if along(&p, &q).is_gt() {
                r.reverse();
                r.iter_mut().for_each(|run| run.reverse());
            }
            (m, r)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_keeps_each_stretch() {
        let v = |x: f64| DVec2::new(x, 2.0 * x);
        // 0: 0–4; 1: 6–2 (keeps 6–4); 2: 1–3 (inside 0: nothing); 3: 5–7.
        let segs = [
            (v(0.0), v(4.0)),
            (v(6.0), v(2.0)),
            (v(1.0), v(3.0)),
            (v(5.0), v(7.0)),
        ];
        let mut parent: Vec<u32> = (0..4).collect();
        for (a, b) in [(0, 1), (0, 2), (1, 3)] {
            crate::geom::union(&mut parent, a, b);
        }
        let kept = keep_first_along_lines(&segs, parent);
        let want = vec![
            (0, vec![vec![v(0.0), v(1.0), v(2.0), v(3.0), v(4.0)]]),
            (1, vec![vec![v(6.0), v(5.0), v(4.0)]]),
            (2, vec![]),
            (3, vec![vec![v(6.0), v(7.0)]]),
        ];
        assert_eq!(kept, want);
    }
}
