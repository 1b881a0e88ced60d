//! A chunk's ground mesh as plain data: a height grid of the built ground
//! (roads on their profiles, towns on their pads, cut and fill between) with
//! skirts, normals and colours by kind, built off the main thread.

use super::ChunkKey;
use crate::plugin::stream::coords::{dir_to_bevy, to_bevy};
use crate::plugin::stream::mesh::{MeshLists, SNOW, built_color, kind_color};
use crate::plugin::stream::settings::ViewSettings;
use crate::terrain::{BuiltMix, LaidGround};
use bevy::math::{DVec2, DVec3};
use bevy::prelude::*;

/// A chunk's mesh as plain data, built off the main thread. Positions are
/// Bevy-axis offsets from the chunk's south-west corner at height 0.
#[derive(Clone, Debug, Default)]
pub struct ChunkMesh {
    /// Which chunk.
    pub key: ChunkKey,
    /// The settings generation it was built for.
    pub generation: u64,
    /// The laid-roads version and ground print it was built for (see
    /// [`LaidRoads::ground_print`](crate::plugin::LaidRoads::ground_print)).
    pub ground: (u64, u64),
    /// Its road ribbons, when built with it: the laid-roads version and
    /// roads fingerprint they were built for, and the ribbons (if any).
    pub ribbons: Option<(u64, u64, Option<MeshLists>)>,
    /// Its vertices and triangles.
    pub lists: MeshLists,
    /// Lowest ground height.
    pub min_height: f64,
    /// Highest ground height.
    pub max_height: f64,
    /// The part of the chunk a lake can show in: the grid cells beside its
    /// vertices below the lake level, as local metres from its corner
    /// (`[x0, y0, x1, y1]`); `None` where it is dry.
    pub wet: Option<[f64; 4]>,
}

/// A jump of the built ground over the natural between two grid vertices of
/// at least this much (metres), and four times the jump on the vertex's
/// other side, is a step (a retaining wall) or a sharp edge of the built
/// ground (the top of a cutting), not a slope to average over.
const MIN_STEP: f64 = 0.5;

/// The slope at a grid vertex along one axis from the built heights `h` of
/// it and its neighbours behind and ahead (cells of side `step`) and the
/// natural heights there, `natural`: the mean rise, as on
/// natural ground, except across a step of the built ground, where the
/// other side's, so that the ground beside a wall is lit as the level
/// ground it is, not as a slope down the wall (a grid cannot follow the
/// wall's line, and its triangles across it would otherwise shine as a
/// saw-tooth).
fn slope(h: [f64; 3], natural: [f64; 3], step: f64) -> f64 {
    // How far the built ground lies above the natural, and its jumps.
    let e = [0, 1, 2].map(|k| h[k] - natural[k]);
    let (jb, ja) = ((e[1] - e[0]).abs(), (e[2] - e[1]).abs());
    if jb.max(ja) >= MIN_STEP && jb.max(ja) > 4.0 * jb.min(ja) {
        if jb < ja {
            (h[1] - h[0]) / step
        } else {
            (h[2] - h[1]) / step
        }
    } else {
        (h[2] - h[0]) / (2.0 * step)
    }
}

/// A chunk's height grid, with a border of one vertex (`(quads + 3)²`
/// samples, row by row from the south-west): the built ground filtered to
/// the chunk's spacing (`view.built_filter`), which its mesh and its ribbons
/// stand on; and what the mesh is lit and coloured by.
pub struct ChunkGrid {
    /// The built ground.
    pub built: Vec<f64>,
    /// What each vertex's cell is built of, for its colour (with the
    /// border, as `built`; empty where the vertices are point samples, or
    /// not asked for).
    pub mix: Vec<BuiltMix>,
    /// The ground's normal at each of the chunk's own vertices (core axes,
    /// z up; `(quads + 1)²`, row by row, no border): what its mesh is lit
    /// by, and the ribbons on it.
    pub normals: Vec<DVec3>,
}

impl ChunkGrid {
    /// The grid of chunk `key`, without the mixes (what ribbons need).
    pub fn of(ground: &LaidGround, key: ChunkKey, view: &ViewSettings) -> Self {
        Self::make(ground, key, view, false)
    }

    /// The grid of chunk `key` with the mixes its mesh is coloured by.
    pub fn for_mesh(ground: &LaidGround, key: ChunkKey, view: &ViewSettings) -> Self {
        Self::make(ground, key, view, true)
    }

    fn make(ground: &LaidGround, key: ChunkKey, view: &ViewSettings, mixes: bool) -> Self {
        let (step, min) = (key.spacing(view), key.corner(view));
        let w = view.chunk_quads as usize + 3;
        let corner = (min.x - step, min.y - step, step);
        let (mut built, mut natural, mut mix) = (Vec::new(), Vec::new(), Vec::new());
        let filter = view.built_filter;
        let (size, heights) = ((w, w), (&mut built, &mut natural));
        if mixes {
            ground.heights_grid_filtered_mix(corner, size, filter, heights, &mut mix)
        } else {
            ground.heights_grid_filtered(corner, size, filter, heights.0, heights.1)
        }
        .expect("chunk grids are small");
        // Each vertex's normal, from the slopes to its neighbours behind
        // and `by` ahead (see [`slope`]).
        let n = w - 2;
        let normals = (0..n * n)
            .map(|k| {
                let (at, by) = ((k / n + 1) * w + k % n + 1, [1, w]);
                let along = |v: &[f64], d: usize| [v[at - d], v[at], v[at + d]];
                let [dzdx, dzdy] = by.map(|d| slope(along(&built, d), along(&natural, d), step));
                DVec3::new(-dzdx, -dzdy, 1.0).normalize()
            })
            .collect();
        Self {
            built,
            mix,
            normals,
        }
    }
}

impl ChunkMesh {
    /// Builds the mesh of the built ground: a grid of `chunk_quads` quads per
    /// side with a skirt hanging from every edge (deep enough to hide the
    /// step to a coarser neighbour), normals from the height field, colours by
    /// kind and snow (the natural ground's kind, or what is built there:
    /// carriageways as road, pads as town ground, embankments grassed, cuts
    /// gravel; on a filtered grid, the mean over each vertex's cell).
    #[cfg(test)]
    pub fn build(ground: &LaidGround, key: ChunkKey, generation: u64, view: &ViewSettings) -> Self {
        Self::build_on(
            ground,
            key,
            generation,
            view,
            &ChunkGrid::for_mesh(ground, key, view),
        )
    }

    /// [`build`](Self::build) on the chunk's grid, `grid`.
    pub fn build_on(
        ground: &LaidGround,
        key: ChunkKey,
        generation: u64,
        view: &ViewSettings,
        grid: &ChunkGrid,
    ) -> Self {
        let terrain = ground.terrain();
        let q = view.chunk_quads as usize;
        let n = q + 1;
        let step = key.spacing(view);
        let min = key.corner(view);
        let h = &grid.built;
        let w = n + 2;
        let height = |i: usize, j: usize| h[(j + 1) * w + i + 1];
        let lake = terrain.params().lake_level;
        // The wet vertices' box, in grid indices.
        let mut wet = [usize::MAX, usize::MAX, 0, 0];
        // The grid and its four skirts, exactly.
        let (vertices, indices) = (n * n + 4 * n, 6 * q * q + 24 * q);
        let mut m = ChunkMesh {
            key,
            generation,
            min_height: f64::MAX,
            max_height: f64::MIN,
            lists: MeshLists {
                positions: Vec::with_capacity(vertices),
                normals: Vec::with_capacity(vertices),
                colors: Vec::with_capacity(vertices),
                indices: Vec::with_capacity(indices),
            },
            ..default()
        };
        for j in 0..n {
            for i in 0..n {
                let z = height(i, j);
                m.min_height = m.min_height.min(z);
                m.max_height = m.max_height.max(z);
                if z < lake {
                    wet = [wet[0].min(i), wet[1].min(j), wet[2].max(i), wet[3].max(j)];
                }
                let local = DVec3::new(i as f64 * step, j as f64 * step, z);
                m.lists
                    .positions
                    .push(to_bevy(local, DVec2::ZERO).to_array());
                let nrm = grid.normals[j * n + i];
                m.lists.normals.push(dir_to_bevy(nrm).to_array());
                let (x, y) = (min.x + local.x, min.y + local.y);
                // The ground's own colour, or what is built there (roads and
                // streams themselves are drawn by ribbons of their own): on
                // a filtered grid, the mean over the vertex's cell.
                let t = terrain.terra(x, y);
                let c = if t.snow {
                    SNOW
                } else if let Some(mix) = grid.mix.get((j + 1) * w + i + 1) {
                    mix.mean(built_color, kind_color(t.kind))
                } else {
                    match ground.built(DVec2::new(x, y), t.height) {
                        Some(b) => built_color(b.kind),
                        None => kind_color(t.kind),
                    }
                };
                m.lists.colors.push([c[0], c[1], c[2], 1.0]);
            }
        }
        // The ground is below the lake only in the cells beside a vertex
        // below it.
        if wet[0] <= wet[2] {
            let [i0, j0] = [wet[0], wet[1]].map(|v| v.saturating_sub(1) as f64 * step);
            let [i1, j1] = [wet[2], wet[3]].map(|v| (v + 1).min(q) as f64 * step);
            m.wet = Some([i0, j0, i1, j1]);
        }
        for j in 0..q as u32 {
            for i in 0..q as u32 {
                let v00 = j * n as u32 + i;
                let (v10, v01, v11) = (v00 + 1, v00 + n as u32, v00 + n as u32 + 1);
                m.lists
                    .indices
                    .extend_from_slice(&[v00, v10, v11, v00, v11, v01]);
            }
        }
        // Skirts: each edge's vertices again, lowered; the quads face outwards.
        let depth = (step * 1.5 + 2.0) as f32;
        let edge = |k: usize| -> Vec<u32> {
            let k = k as u32;
            let n = n as u32;
            match k {
                0 => (0..n).collect(),                                // south, west → east
                1 => (0..n).map(|j| j * n + n - 1).collect(),         // east, south → north
                2 => (0..n).rev().map(|i| (n - 1) * n + i).collect(), // north, east → west
                _ => (0..n).rev().map(|j| j * n).collect(),           // west, north → south
            }
        };
        for side in 0..4 {
            let top = edge(side);
            let base = m.lists.positions.len() as u32;
            for &v in &top {
                let mut p = m.lists.positions[v as usize];
                p[1] -= depth;
                m.lists.positions.push(p);
                m.lists.normals.push(m.lists.normals[v as usize]);
                m.lists.colors.push(m.lists.colors[v as usize]);
            }
            for k in 0..top.len() as u32 - 1 {
                let (a, b) = (top[k as usize], top[k as usize + 1]);
                let (c, d) = (base + k, base + k + 1);
                // Walking the edge anticlockwise, the outside is on the right.
                m.lists.indices.extend_from_slice(&[a, c, d, a, d, b]);
            }
        }
        debug_assert_eq!(
            (m.lists.positions.len(), m.lists.indices.len()),
            (vertices, indices)
        );
        m
    }

    /// The Bevy mesh.
    pub fn into_mesh(self) -> Mesh {
        self.lists.into_mesh()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_water_covers_a_chunk_s_wet_cells_only() {
        let t = crate::terrain::Terrain::default();
        let lake = t.params().lake_level;
        let ground = LaidGround::new(std::sync::Arc::new(t.clone()));
        let view = ViewSettings::default();
        let q = view.chunk_quads as usize;
        // Around (-1811, 3062), in a lake: 256 m chunks over its shore.
        let (mut wet, mut shore, mut dry) = (0, 0, 0);
        for (x, y) in (-10..-6).flat_map(|x| (9..13).map(move |y| (x, y))) {
            let key = ChunkKey { level: 2, x, y };
            let m = ChunkMesh::build(&ground, key, 0, &view);
            let Some([x0, y0, x1, y1]) = m.wet else {
                assert!(m.min_height >= lake, "{key:?}");
                dry += 1;
                continue;
            };
            let size = key.size(&view);
            assert!(0.0 <= x0 && x0 < x1 && x1 <= size, "{key:?}");
            assert!(0.0 <= y0 && y0 < y1 && y1 <= size, "{key:?}");
            wet += 1;
            shore += ((x1 - x0) * (y1 - y0) < size * size) as usize;
            // Every triangle of the ground with a vertex below the lake lies
            // in the box (positions: east, up, south).
            for tri in m.lists.indices[..6 * q * q].chunks(3) {
                let p = [0, 1, 2].map(|k| m.lists.positions[tri[k] as usize]);
                if p.iter().any(|p| (p[1] as f64) < lake - 1e-3) {
                    for p in p {
                        let (e, n) = (p[0] as f64, -p[2] as f64);
                        let inside = x0 - 1e-3 <= e && e <= x1 + 1e-3;
                        assert!(inside && y0 - 1e-3 <= n && n <= y1 + 1e-3, "{key:?}");
                    }
                }
            }
        }
        assert!(wet > 0 && shore > 0 && dry > 0, "{wet} {shore} {dry}");
    }

    #[test]
    fn chunk_mesh_matches_heights_and_has_skirts() {
        let t = crate::terrain::Terrain::default();
        let ground = LaidGround::new(std::sync::Arc::new(t.clone()));
        let view = ViewSettings {
            chunk_quads: 8,
            ..Default::default()
        };
        let key = ChunkKey {
            level: 1,
            x: 148,
            y: 9,
        };
        let m = ChunkMesh::build(&ground, key, 3, &view);
        let n = 9;
        assert_eq!(m.lists.positions.len(), n * n + 4 * n);
        assert_eq!(m.lists.indices.len(), 8 * 8 * 6 + 4 * 8 * 6);
        let min = key.corner(&view);
        let step = key.size(&view) / 8.0;
        for j in 0..n {
            for i in 0..n {
                let p = m.lists.positions[j * n + i];
                let h = t.height(min.x + i as f64 * step, min.y + j as f64 * step);
                assert_eq!(
                    p,
                    [
                        (i as f64 * step) as f32,
                        h as f32,
                        -(j as f64 * step) as f32
                    ]
                );
            }
        }
        // Every triangle faces up or outwards, never into the chunk.
        let centre = Vec3::new(64.0, 0.0, -64.0);
        for tri in m.lists.indices.chunks(3) {
            let [a, b, c] =
                [tri[0], tri[1], tri[2]].map(|i| Vec3::from(m.lists.positions[i as usize]));
            let nrm = (b - a).cross(c - a);
            let mid = (a + b + c) / 3.0;
            let outward = Vec3::new(mid.x - centre.x, 0.0, mid.z - centre.z);
            assert!(
                nrm.y > 0.0 || (nrm.y.abs() < 1e-3 && nrm.dot(outward) > 0.0),
                "{tri:?} {nrm}"
            );
        }
        assert!(m.min_height <= m.max_height);
        assert_eq!(m.generation, 3);
    }

    /// A level terrace at 300 m over x in [19210, 19240]: a carriageway south
    /// of y = 1300, fill or cut north of it.
    #[derive(Debug)]
    struct Terrace;

    impl crate::terrain::Relief for Terrace {
        fn built(&self, p: DVec2, natural: f64) -> Option<crate::terrain::Built> {
            use crate::terrain::BuiltKind;
            (19210.0..=19240.0)
                .contains(&p.x)
                .then_some(crate::terrain::Built {
                    height: 300.0,
                    kind: match () {
                        _ if p.y < 1300.0 => BuiltKind::Carriageway,
                        _ if natural < 300.0 => BuiltKind::Fill,
                        _ => BuiltKind::Cut,
                    },
                })
        }

        fn may_shape(&self, min: DVec2, max: DVec2) -> bool {
            min.x <= 19240.0 && max.x >= 19210.0
        }
    }

    /// A pad 20 m above the natural ground over x in [19213, 19237]: a
    /// retaining wall at each edge, between the chunk's grid vertices.
    #[derive(Debug)]
    struct Raised;

    impl crate::terrain::Relief for Raised {
        fn built(&self, p: DVec2, natural: f64) -> Option<crate::terrain::Built> {
            (19213.0..=19237.0)
                .contains(&p.x)
                .then_some(crate::terrain::Built {
                    height: natural + 20.0,
                    kind: crate::terrain::BuiltKind::Pad,
                })
        }

        fn may_shape(&self, min: DVec2, max: DVec2) -> bool {
            min.x <= 19237.0 && max.x >= 19213.0
        }
    }

    #[test]
    fn the_ground_beside_a_wall_is_lit_as_level_ground() {
        use std::sync::Arc;
        let t = Arc::new(crate::terrain::Terrain::default());
        let bare = LaidGround::new(t.clone());
        let raised = LaidGround::new(t).with_relief(Arc::new(Raised));
        let view = ViewSettings::default();
        let key = ChunkKey {
            level: 0,
            x: 300,
            y: 20,
        };
        let (a, b) = (
            ChunkMesh::build(&bare, key, 1, &view),
            ChunkMesh::build(&raised, key, 1, &view),
        );
        let (min, step, n) = (key.corner(&view), key.spacing(&view), 33);
        let mut beside = 0;
        for j in 0..n {
            for i in 0..n {
                let x = min.x + i as f64 * step;
                let k = j * n + i;
                // The pad's gradient is the natural ground's, so every normal
                // is the bare ground's: beside a wall from one side's rise,
                // not both (the mean of the rises would tilt it by a 20 m step
                // over two cells: by 79° on level ground, and by 36° at the
                // first vertex beside the west wall here).
                let (na, nb) = (
                    Vec3::from(a.lists.normals[k]),
                    Vec3::from(b.lists.normals[k]),
                );
                let edge = |e: f64| (x - e).abs() < step;
                let near_wall = edge(19213.0) || edge(19237.0);
                beside += near_wall as usize;
                let least = if near_wall { 0.95 } else { 0.9999 };
                assert!(na.dot(nb) > least, "({i}, {j}): {na} {nb}");
            }
        }
        assert!(beside >= 2 * n, "{beside}");
    }

    /// Town ground on pads 10 m wide every 20 m, 6 m above the natural
    /// ground, nothing built between them: narrower than a distant chunk's
    /// cells.
    #[derive(Debug)]
    struct Lots;

    impl crate::terrain::Relief for Lots {
        fn built(&self, p: DVec2, natural: f64) -> Option<crate::terrain::Built> {
            ((p.x / 10.0).floor().rem_euclid(2.0) == 0.0).then_some(crate::terrain::Built {
                height: natural + 6.0,
                kind: crate::terrain::BuiltKind::Pad,
            })
        }

        fn may_shape(&self, _: DVec2, _: DVec2) -> bool {
            true
        }
    }

    #[test]
    fn a_distant_chunk_meshes_the_built_ground_filtered_to_its_spacing() {
        use std::sync::Arc;
        let t = Arc::new(crate::terrain::Terrain::default());
        let ground = LaidGround::new(t).with_relief(Arc::new(Lots));
        let key = ChunkKey {
            level: 3,
            x: 37,
            y: 2,
        };
        let heights = |view: &ViewSettings| -> Vec<f32> {
            let m = ChunkMesh::build(&ground, key, 1, view);
            (0..33 * 33).map(|k| m.lists.positions[k][1]).collect()
        };
        // The chunk's grid with a border of one vertex, as built.
        let view = ViewSettings::default();
        let (min, step) = (key.corner(&view), key.spacing(&view));
        assert_eq!(step, 16.0);
        let grid = |filter: f64| -> Vec<f32> {
            let (mut h, mut natural) = (Vec::new(), Vec::new());
            let at = (min.x - step, min.y - step, step);
            (ground.heights_grid_filtered(at, (35, 35), filter, &mut h, &mut natural)).unwrap();
            (0..33 * 33)
                .map(|k| h[(k / 33 + 1) * 35 + k % 33 + 1] as f32)
                .collect()
        };
        // By default each vertex stands on the mean over its cell ...
        let filtered = heights(&view);
        assert_eq!(filtered, grid(2.0));
        // ... where with `built_filter` 0 it takes the one pad it lands on.
        let point = heights(&ViewSettings {
            built_filter: 0.0,
            ..default()
        });
        assert_eq!(point, grid(0.0));
        let t = ground.terrain();
        let excess = (0..33 * 33).map(|k| {
            let (i, j) = ((k % 33) as f64, (k / 33) as f64);
            point[k] as f64 - t.height(min.x + i * step, min.y + j * step)
        });
        assert!(
            excess
                .clone()
                .all(|e| e.abs() < 0.01 || (e - 6.0).abs() < 0.01)
        );
        let differ = (filtered.iter().zip(&point)).filter(|(f, p)| (**f - **p).abs() > 0.5);
        assert!(differ.count() > 33 * 33 / 2);
    }

    #[test]
    fn a_distant_chunk_s_colours_are_the_mean_over_its_cells() {
        use crate::terrain::BuiltKind;
        use std::sync::Arc;
        let t = Arc::new(crate::terrain::Terrain::default());
        let ground = LaidGround::new(t.clone()).with_relief(Arc::new(Lots));
        let key = ChunkKey {
            level: 3,
            x: 37,
            y: 2,
        };
        let view = ViewSettings::default();
        let (min, step) = (key.corner(&view), key.spacing(&view));
        let filtered = ChunkMesh::build(&ground, key, 1, &view);
        let point = ChunkMesh::build(
            &ground,
            key,
            1,
            &ViewSettings {
                built_filter: 0.0,
                ..default()
            },
        );
        let pad = built_color(BuiltKind::Pad);
        let (mut mixed, mut vertices) = (0, 0);
        for k in 0..33 * 33 {
            let (x, y) = (
                min.x + (k % 33) as f64 * step,
                min.y + (k / 33) as f64 * step,
            );
            let terra = t.terra(x, y);
            if terra.snow {
                continue;
            }
            vertices += 1;
            let natural = kind_color(terra.kind);
            let on = |x: f64| (x / 10.0).floor().rem_euclid(2.0) == 0.0;
            let rgb = |c: [f32; 4]| [c[0], c[1], c[2]];
            // One sample: the pad's colour or the natural one, whichever it
            // lands on.
            let want = if on(x) { pad } else { natural };
            assert_eq!(rgb(point.lists.colors[k]), want, "({x}, {y})");
            // Filtered: 4 × 4 sub-samples 4 m apart over the 16 m cell, one
            // in each column (x − 6, x − 2, x + 2, x + 6) judged.
            let n = [-6.0, -2.0, 2.0, 6.0].iter().filter(|d| on(x + *d)).count() as f32;
            let want: Vec<f32> = (0..3)
                .map(|c| (n * pad[c] + (4.0 - n) * natural[c]) / 4.0)
                .collect();
            let got = rgb(filtered.lists.colors[k]);
            assert!(
                (0..3).all(|c| (got[c] - want[c]).abs() < 1.0e-6),
                "({x}, {y}): {got:?} {want:?}"
            );
            mixed += (n > 0.0 && n < 4.0) as usize;
        }
        assert!(
            vertices > 500 && mixed * 2 > vertices,
            "{mixed} of {vertices}"
        );
    }

    #[test]
    fn a_chunk_meshes_the_built_ground_and_colours_it() {
        use crate::plugin::stream::mesh::built_color;
        use crate::terrain::{BuiltKind, Terrain};
        use std::sync::Arc;
        let t = Arc::new(Terrain::default());
        let ground = LaidGround::new(t.clone()).with_relief(Arc::new(Terrace));
        let view = ViewSettings::default();
        let key = ChunkKey {
            level: 0,
            x: 300,
            y: 20,
        };
        let m = ChunkMesh::build(&ground, key, 1, &view);
        let (min, step, n) = (key.corner(&view), key.spacing(&view), 33);
        let (mut built, mut natural) = (0, 0);
        for j in 0..n {
            for i in 0..n {
                let (x, y) = (min.x + i as f64 * step, min.y + j as f64 * step);
                let (p, c) = (m.lists.positions[j * n + i], m.lists.colors[j * n + i]);
                assert_eq!(p[1], ground.height(x, y) as f32);
                let tt = t.terra(x, y);
                if (19210.0..=19240.0).contains(&x) {
                    built += 1;
                    assert_eq!(p[1], 300.0);
                    let kind = match () {
                        _ if y < 1300.0 => BuiltKind::Carriageway,
                        _ if tt.height < 300.0 => BuiltKind::Fill,
                        _ => BuiltKind::Cut,
                    };
                    if !tt.snow {
                        assert_eq!(&c[..3], &built_color(kind)[..]);
                    }
                } else {
                    natural += 1;
                    assert_eq!(p[1], t.height(x, y) as f32);
                }
            }
        }
        assert!(built > 100 && natural > 100, "{built} {natural}");
    }
}
