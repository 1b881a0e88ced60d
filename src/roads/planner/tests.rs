use super::*;
use crate::terrain::Terrain;

#[test]
fn scratch_terrain() {
    let t = Terrain::default();
    let lake = t.params().lake_level;
    let mut wet = 0;
    let mut n = 0;
    let mut grades = Vec::new();
    for i in 0..200 {
        for j in 0..200 {
            let (x, y) = (i as f64 * 50.0, j as f64 * 50.0);
            let z = t.height(x, y);
            n += 1;
            if z < lake {
                wet += 1;
            }
            let g = (t.height(x + 10.0, y) - z).abs() / 10.0;
            grades.push(g);
        }
    }
    grades.sort_by(f64::total_cmp);
    println!(
        "wet {wet}/{n}, grade median {} p90 {} max {}",
        grades[grades.len() / 2],
        grades[grades.len() * 9 / 10],
        grades.last().unwrap()
    );
    for (x, y) in [
        (0.0, 0.0),
        (4000.0, 0.0),
        (0.0, 4000.0),
        (4000.0, 4000.0),
        (2600.0, 600.0),
        (3400.0, 900.0),
        (1000.0, 1000.0),
        (5000.0, 2000.0),
        (8000.0, 3000.0),
        (-3000.0, 2000.0),
    ] {
        println!("{x} {y}: {}", t.height(x, y));
    }
}
