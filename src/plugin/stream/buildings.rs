//! City buildings' geometry: walls from their base (the level pad
//! the world built for them), with a foundation below it and below the lowest
//! corner's ground (so no building floats where the ground is not level), to
//! the eaves, gabled
//! roofs on small four-cornered houses and flat roofs elsewhere, wall and
//! roof colours varied per building by a hash of its position.

use super::mesh::{MeshLists, linear};
use crate::num::hash_unit;
use bevy::math::{DVec2, DVec3};

/// How far walls reach below the base and the lowest corner's ground, metres.
pub const FOUNDATION: f64 = 1.0;
/// The eaves stand at least this high above the highest corner, metres.
const MIN_STOREY: f64 = 3.0;
/// Buildings up to this height get a pitched roof (when four-cornered).
const GABLE_MAX_HEIGHT: f64 = 14.0;

/// Wall colours (sRGB): plaster, sand, ochre, brick, grey.
const WALLS: [[f32; 3]; 5] = [
    [0.86, 0.83, 0.76],
    [0.80, 0.72, 0.58],
    [0.78, 0.64, 0.42],
    [0.62, 0.36, 0.28],
    [0.66, 0.66, 0.64],
];
/// Pitched-roof colours (sRGB): terracotta, dark tile, slate, brown.
const ROOFS: [[f32; 3]; 4] = [
    [0.62, 0.28, 0.20],
    [0.42, 0.22, 0.18],
    [0.30, 0.32, 0.36],
    [0.40, 0.30, 0.24],
];
/// Flat-roof colour (sRGB): tar and gravel.
const FLAT_ROOF: [f32; 3] = [0.36, 0.36, 0.38];

/// Adds one building: `footprint` (counter-clockwise, world metres),
/// standing on `base` (the height its walls start at: its pad), `height` to
/// the eaves above the base (and at least a storey above its highest
/// corner), `ground(p)` the ground height (the walls reach a foundation below
/// the lowest of the base and the corners); everything relative to `anchor`.
/// Footprints with fewer than three corners, or not finite, are skipped.
pub fn add_building(
    m: &mut MeshLists,
    footprint: &[DVec2],
    height: f64,
    base: f64,
    ground: impl Fn(DVec2) -> f64,
    anchor: DVec3,
) {
    if footprint.len() < 3
        || !footprint.iter().all(|p| p.is_finite())
        || !height.is_finite()
        || !base.is_finite()
    {
        return;
    }
    let local: Vec<DVec2> = footprint.iter().map(|&p| p - anchor.truncate()).collect();
    let zs: Vec<f64> = footprint.iter().map(|&p| ground(p)).collect();
    let low = zs.iter().copied().fold(base, f64::min);
    let lo = low - FOUNDATION - anchor.z;
    let high = zs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    // The height counts from the base; the eaves stay a storey above the
    // highest corner where the ground rises above it.
    let top = (base + height.max(2.0)).max(high + MIN_STOREY) - anchor.z;
    let h = |salt| {
        hash_unit(
            footprint[0].x.to_bits() as i64,
            footprint[0].y.to_bits() as i64,
            salt,
        )
    };
    let wall = linear(WALLS[(h(11) * WALLS.len() as f64) as usize % WALLS.len()]);
    for (i, &a) in local.iter().enumerate() {
        let b = local[(i + 1) % local.len()];
        let d = b - a;
        let out = DVec3::new(d.y, -d.x, 0.0);
        m.face(
            &[a.extend(lo), b.extend(lo), b.extend(top), a.extend(top)],
            out,
            wall,
        );
    }
    if local.len() == 4 && height <= GABLE_MAX_HEIGHT && crate::geom::turn_range(&local).0 > 0.0 {
        let roof = linear(ROOFS[(h(12) * ROOFS.len() as f64) as usize % ROOFS.len()]);
        gable(m, &local, top, wall, roof);
    } else {
        let mut tris: Vec<usize> = Vec::new();
        earcut::Earcut::new().earcut(local.iter().map(|p| [p.x, p.y]), &[], &mut tris);
        m.flat(&local, &tris, top, linear(FLAT_ROOF));
    }
}

/// A pitched roof over a convex quadrilateral: the ridge runs along the
/// longer sides, over the middle, rising by a third of the span.
fn gable(m: &mut MeshLists, q: &[DVec2], top: f64, wall: [f32; 4], roof: [f32; 4]) {
    // Rotate so that q0–q1 and q2–q3 are the long sides.
    let long01 = q[0].distance(q[1]) + q[2].distance(q[3]);
    let long12 = q[1].distance(q[2]) + q[3].distance(q[0]);
    let q: [DVec2; 4] = if long01 >= long12 {
        [q[0], q[1], q[2], q[3]]
    } else {
        [q[1], q[2], q[3], q[0]]
    };
    let r0 = (q[3] + q[0]) * 0.5;
    let r1 = (q[1] + q[2]) * 0.5;
    let span = 0.5 * (q[0].distance(q[3]) + q[1].distance(q[2]));
    let ridge = top + span / 3.0;
    let at = |p: DVec2| p.extend(top);
    let centre = (q[0] + q[1] + q[2] + q[3]) * 0.25;
    let outward = |p: DVec2| (p - centre).extend(0.0);
    // Slopes face up and out over the long sides.
    for (a, b) in [(q[0], q[1]), (q[2], q[3])] {
        let (ra, rb) = if a == q[0] { (r0, r1) } else { (r1, r0) };
        let mid = (a + b) * 0.5;
        m.face(
            &[at(a), at(b), rb.extend(ridge), ra.extend(ridge)],
            outward(mid) + DVec3::Z,
            roof,
        );
    }
    // Gable ends: wall-coloured triangles over the short sides.
    for (a, b, r) in [(q[1], q[2], r1), (q[3], q[0], r0)] {
        m.face(&[at(a), at(b), r.extend(ridge)], outward(r), wall);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rect(c: DVec2, w: f64, d: f64) -> Vec<DVec2> {
        [(-1., -1.), (1., -1.), (1., 1.), (-1., 1.)]
            .map(|(x, y)| c + DVec2::new(x * w, y * d) * 0.5)
            .into()
    }

    #[test]
    fn a_house_on_a_slope_reaches_below_its_lowest_corner_and_faces_out() {
        let mut m = MeshLists::default();
        let ground = |p: DVec2| 100.0 + 0.2 * p.x;
        let anchor = DVec3::new(0.0, 0.0, 100.0);
        // Based at the mean ground (as laid out on natural ground).
        add_building(
            &mut m,
            &rect(DVec2::new(10.0, 0.0), 12.0, 8.0),
            6.0,
            102.0,
            ground,
            anchor,
        );
        // Four walls (16 vertices), two slopes (8), two gables (6).
        assert_eq!(m.vertex_count(), 30);
        let ys: Vec<f32> = m.positions.iter().map(|p| p[1]).collect();
        let low = ys.iter().copied().fold(f32::INFINITY, f32::min);
        // The lowest corner (x = 4) is 0.8 m up: walls start 1 m below it.
        assert!((low - (0.8 - 1.0)).abs() < 1e-5, "{low}");
        // The ridge: mean ground 2 + 6 + span 8 / 3.
        let high = ys.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        assert!(
            (high - (2.0 + 6.0 + 8.0 / 3.0) as f32).abs() < 1e-4,
            "{high}"
        );
        // Every triangle's winding agrees with its stored normal.
        for t in m.indices.chunks_exact(3) {
            let p = [t[0], t[1], t[2]].map(|i| bevy::math::Vec3::from(m.positions[i as usize]));
            let n = (p[1] - p[0]).cross(p[2] - p[0]);
            let stored = bevy::math::Vec3::from(m.normals[t[0] as usize]);
            assert!(n.dot(stored) > 0.0);
        }
    }

    #[test]
    fn tall_or_odd_footprints_get_flat_roofs_and_bad_ones_nothing() {
        let mut m = MeshLists::default();
        let flat_ground = |_: DVec2| 0.0;
        add_building(
            &mut m,
            &rect(DVec2::ZERO, 20.0, 20.0),
            30.0,
            0.0,
            flat_ground,
            DVec3::ZERO,
        );
        // Walls 16 + flat roof 2 triangles (6).
        assert_eq!(m.vertex_count(), 22);
        let l = [
            (0., 0.),
            (20., 0.),
            (20., 10.),
            (10., 10.),
            (10., 20.),
            (0., 20.),
        ]
        .map(|(x, y)| DVec2::new(x, y));
        add_building(&mut m, &l, 8.0, 0.0, flat_ground, DVec3::ZERO);
        assert_eq!(m.vertex_count(), 22 + 24 + 12);
        let before = m.vertex_count();
        add_building(&mut m, &l[..2], 8.0, 0.0, flat_ground, DVec3::ZERO);
        add_building(&mut m, &[DVec2::NAN; 4], 8.0, 0.0, flat_ground, DVec3::ZERO);
        add_building(&mut m, &l, 8.0, f64::NAN, flat_ground, DVec3::ZERO);
        assert_eq!(m.vertex_count(), before);
    }

    #[test]
    fn a_house_on_its_pad_starts_at_its_base() {
        // A level pad at 250 m cut into a slope: the walls start a
        // foundation below the base, the eaves count from it.
        let mut m = MeshLists::default();
        let pad = |_: DVec2| 250.0;
        let anchor = DVec3::new(0.0, 0.0, 200.0);
        add_building(
            &mut m,
            &rect(DVec2::ZERO, 10.0, 10.0),
            7.0,
            250.0,
            pad,
            anchor,
        );
        let (lo, _) = m.height_range().unwrap();
        assert_eq!(lo, (250.0 - FOUNDATION - 200.0) as f32);
        let walls_top = m.positions[2][1];
        assert_eq!(walls_top, 57.0);
        // On ground that falls away from a base above it, the walls reach
        // below the lowest corner.
        let mut m = MeshLists::default();
        let slope = |p: DVec2| 250.0 + 0.5 * p.x;
        add_building(
            &mut m,
            &rect(DVec2::ZERO, 10.0, 10.0),
            7.0,
            250.0,
            slope,
            anchor,
        );
        let (lo, _) = m.height_range().unwrap();
        assert_eq!(lo, (247.5 - FOUNDATION - 200.0) as f32);
    }
}
