//! Earthworks in the world: a hand-made region (a road on a level terrace,
//! with a bridge, a tunnel and a retaining wall) laid through
//! `ReliefPlugin::with_regions`: chunks mesh its built ground, ribbons leave
//! out the bridge and the tunnel, structures get meshes, and a new region
//! re-meshes only the chunks its earthworks touch.

use super::*;
use bevy::mesh::VertexAttributeValues;
use bevy_relief::network::{Road, RoadClass, RoadLayer, RoadNetwork};
use bevy_relief::plugin::{ChunkKey, ChunkRoads, ReliefStructures};
use bevy_relief::terrain::{Built, BuiltKind, LaidGround, LaidKind, Relief};
use bevy_relief::world::{Region, Structure, StructureKind};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// The road: y = 1300, x from 18700 to 19700.
const Y: f64 = 1300.0;
const X0: f64 = 18700.0;
const X1: f64 = 19700.0;
/// The terrace's half width.
const HALF: f64 = 20.0;

/// A level terrace at `.0` metres within `HALF` of the road.
#[derive(Debug)]
struct Terrace(f64);

impl Relief for Terrace {
    fn built(&self, p: DVec2, natural: f64) -> Option<Built> {
        let dy = (p.y - Y).abs();
        (dy <= HALF && (X0..=X1).contains(&p.x)).then_some(Built {
            height: self.0,
            kind: match () {
                _ if dy <= 4.0 => BuiltKind::Carriageway,
                _ if natural < self.0 => BuiltKind::Fill,
                _ => BuiltKind::Cut,
            },
        })
    }

    fn may_shape(&self, min: DVec2, max: DVec2) -> bool {
        min.x <= X1 && max.x >= X0 && min.y <= Y + HALF && max.y >= Y - HALF
    }
}

fn line(x0: f64, x1: f64, y: f64, z: f64) -> Vec<DVec3> {
    vec![DVec3::new(x0, y, z), DVec3::new(x1, y, z)]
}

/// The region: the road on the terrace at `z`, a bridge (x 19000–19100),
/// a tunnel (19300–19400) and a wall along the terrace's north edge
/// (19150–19250, near the focus: drawn by the finest chunks).
fn region(terrain: &Terrain, min: DVec2, max: DVec2, z: f64) -> Region {
    let mut road = Road::new(
        vec![DVec2::new(X0, Y), DVec2::new(X1, Y)],
        RoadClass::Road,
        6.0,
    );
    road.z = vec![z, z];
    let network = Arc::new(RoadNetwork::from_roads(vec![road]));
    let ground = LaidGround::new(Arc::new(terrain.clone()))
        .with(LaidKind::Road, Arc::new(RoadLayer::new(network.clone())))
        .with_relief(Arc::new(Terrace(z)));
    let structures = vec![
        Structure {
            kind: StructureKind::Bridge,
            road: Some(0),
            line: line(19000.0, 19100.0, Y, z),
            foot: vec![z - 40.0; 2],
        },
        Structure {
            kind: StructureKind::Tunnel,
            road: Some(0),
            line: line(19300.0, 19400.0, Y, z),
            foot: vec![z + 30.0; 2],
        },
        Structure {
            kind: StructureKind::Wall,
            road: None,
            line: line(19150.0, 19250.0, Y + HALF, z),
            foot: vec![z - 5.0; 2],
        },
    ];
    Region {
        min,
        max,
        network,
        cities: Vec::new(),
        layouts: Vec::new(),
        ground: Arc::new(ground),
        structures,
        report: Default::default(),
    }
}

/// The world around (19200, 1300) laid from hand-made regions whose
/// terrace stands at the height in the returned cell.
fn terrace_world(z: f64) -> (App, Arc<AtomicU64>) {
    let height = Arc::new(AtomicU64::new(z.to_bits()));
    let h = height.clone();
    let source = move |t: &Terrain, min: DVec2, max: DVec2| {
        Ok(region(
            t,
            min,
            max,
            f64::from_bits(h.load(Ordering::Relaxed)),
        ))
    };
    let mut app = app_with(small_world().with_regions(source));
    spawn_focus(&mut app, Vec3::new(0.0, 600.0, 0.0));
    app.update();
    app.world_mut().resource_mut::<RenderOrigin>().0 = DVec2::new(19200.0, Y);
    (app, height)
}

fn built_and_shown(app: &mut App) -> bool {
    let s = app.world().resource::<ReliefStats>().clone();
    settled(app) && s.roads == 1 && s.structures_pending == 0 && s.structure_cells > 0
}

/// Every vertex of a mesh, in core coordinates (meshes laid out in Bevy
/// axes relative to `anchor`).
fn vertices(app: &App, mesh: &Mesh3d, anchor: DVec3) -> Vec<DVec3> {
    let meshes = app.world().resource::<Assets<Mesh>>();
    let Some(VertexAttributeValues::Float32x3(ps)) = meshes
        .get(&mesh.0)
        .and_then(|m| m.attribute(Mesh::ATTRIBUTE_POSITION))
    else {
        panic!("a mesh with positions");
    };
    ps.iter()
        .map(|p| anchor + DVec3::new(p[0] as f64, -p[2] as f64, p[1] as f64))
        .collect()
}

/// Every shown chunk's mesh: its key, handle and vertices.
fn chunk_meshes(app: &mut App) -> Vec<(ChunkKey, AssetId<Mesh>, Vec<DVec3>)> {
    let mut q = app
        .world_mut()
        .query::<(&TerrainChunk, &Mesh3d, &WorldAnchor, &Visibility)>();
    let list: Vec<_> = (q.iter(app.world()))
        .filter(|(_, _, _, v)| **v != Visibility::Hidden)
        .map(|(c, m, a, _)| (c.key, m.clone(), a.0))
        .collect();
    (list.into_iter())
        .map(|(k, m, a)| (k, m.id(), vertices(app, &m, a)))
        .collect()
}

/// Whether a point lies inside the terrace, off its edges by more than a
/// cell and a half of the coarsest chunks over it (8 m, 500 m from the
/// focus), whose filtered ground mixes the terrace with the hillside there.
fn on_terrace(p: DVec3) -> bool {
    (p.y - Y).abs() < HALF - 8.0 && p.x > X0 + 16.0 && p.x < X1 - 16.0
}

#[test]
fn a_hand_made_region_is_built_into_the_world() {
    let z = 280.0;
    let (mut app, _) = terrace_world(z);
    run_until(
        &mut app,
        "the terrace, its road and structures",
        built_and_shown,
    );
    let laid = app.world().resource::<LaidRoads>().clone();
    assert_eq!(laid.ground.height(19200.0, Y + 10.0), z);
    assert_eq!(laid.structures.len(), 3);
    // Gameplay stands on the bridge's deck, not in the valley under it (nor
    // on the road in a tunnel).
    assert_eq!(laid.deck_at(DVec2::new(19050.0, Y + 2.0)), Some(z));
    assert_eq!(laid.deck_at(DVec2::new(19050.0, Y + 8.0)), None);
    assert_eq!(laid.deck_at(DVec2::new(19350.0, Y)), None);
    assert_eq!(laid.deck_at(DVec2::new(18900.0, Y)), None);
    // The ground's mesh stands on the terrace (its skirts hang below).
    let mut top = 0;
    for (_, _, vs) in chunk_meshes(&mut app) {
        for v in vs.into_iter().filter(|v| on_terrace(*v)) {
            assert!(v.z == z || v.z < z - 1.0, "{v} off the terrace");
            top += (v.z == z) as usize;
        }
    }
    assert!(top > 100, "{top} terrace vertices");
    // Ribbons along the road but not over the bridge or in the tunnel.
    let mut q = app.world_mut().query::<(&ChunkRoads, &Mesh3d, &ChildOf)>();
    let ribbons: Vec<(Mesh3d, Entity)> = (q.iter(app.world()))
        .map(|(_, m, c)| (m.clone(), c.parent()))
        .collect();
    let mut along = 0;
    for (m, parent) in ribbons {
        let anchor = app.world().get::<WorldAnchor>(parent).unwrap().0;
        for v in vertices(&app, &m, anchor) {
            if (v.y - Y).abs() > 4.0 {
                continue;
            }
            let structure = |a: f64, b: f64| v.x > a + 0.01 && v.x < b - 0.01;
            assert!(
                !structure(19000.0, 19100.0) && !structure(19300.0, 19400.0),
                "a ribbon at {v}"
            );
            along += 1;
            // On the terrace, a little above it.
            if on_terrace(v) {
                assert!(v.z > z && v.z < z + 2.0, "{v}");
            }
        }
    }
    assert!(along > 100, "{along} ribbon vertices");
    // The finest chunks draw the wall, up to its top (0.3 m over the
    // terrace) along its line.
    let mut wall = 0;
    for (key, _, vs) in chunk_meshes(&mut app) {
        for v in vs {
            let on_line = (v.y - (Y + HALF)).abs() <= 0.31 && (19150.0..=19250.0).contains(&v.x);
            if on_line && (v.z - (z + 0.3)).abs() < 1e-3 {
                assert_eq!(key.level, 0, "{v}");
                wall += 1;
            }
        }
    }
    assert!(wall >= 4, "{wall} vertices at the wall's top");
    // The cells (256 m) hold the bridge and the tunnel: the deck and
    // parapets on top, the piers down below the bridge's foot.
    let mut q = app
        .world_mut()
        .query::<(&ReliefStructures, &Mesh3d, &WorldAnchor)>();
    let cells: Vec<_> = (q.iter(app.world()))
        .map(|(s, m, a)| (*s, m.clone(), a.0))
        .collect();
    assert!(
        !cells.is_empty() && cells.len() <= 3,
        "{} cells",
        cells.len()
    );
    assert_eq!(cells.iter().map(|c| c.0.structures).sum::<usize>(), 2);
    let vs: Vec<DVec3> = (cells.iter())
        .flat_map(|c| vertices(&app, &c.1, c.2))
        .collect();
    let (lo, hi) = vs.iter().fold((f64::MAX, f64::MIN), |(lo, hi), v| {
        (lo.min(v.z), hi.max(v.z))
    });
    assert!(lo <= z - 40.0 - 1.0 + 1e-3, "{lo}");
    // The tunnel's headwalls reach 12 m over their 6 m openings.
    assert!((hi - (z + 18.0)).abs() < 1e-3, "{hi}");
}

/// Asserts that on the terrace every chunk's ribbons stand just above the
/// chunk's own mesh (the old terrace or the new, never one on the other).
fn ribbons_on_their_chunks(app: &mut App) {
    let mut q = app
        .world_mut()
        .query::<(&TerrainChunk, &Mesh3d, &WorldAnchor, &Children)>();
    let chunks: Vec<(Mesh3d, DVec3, Vec<Entity>)> = (q.iter(app.world()))
        .map(|(_, m, a, c)| (m.clone(), a.0, c.iter().collect()))
        .collect();
    for (mesh, anchor, children) in chunks {
        let ground = vertices(app, &mesh, anchor);
        let Some(top) = (ground.iter())
            .filter(|v| on_terrace(**v))
            .map(|v| v.z)
            .reduce(f64::max)
        else {
            continue;
        };
        for c in children {
            let Some(m) = app.world().get::<Mesh3d>(c) else {
                continue;
            };
            if app.world().get::<ChunkRoads>(c).is_none() {
                continue;
            }
            for v in vertices(app, &m.clone(), anchor) {
                if on_terrace(v) {
                    assert!(
                        v.z > top && v.z < top + 2.0,
                        "ribbon {v} over ground at {top}"
                    );
                }
            }
        }
    }
}

#[test]
fn a_new_region_re_meshes_only_the_chunks_its_earthworks_touch() {
    let (mut app, height) = terrace_world(280.0);
    run_until(&mut app, "the first terrace", built_and_shown);
    let before: HashMap<ChunkKey, AssetId<Mesh>> = (chunk_meshes(&mut app).into_iter())
        .map(|(k, id, _)| (k, id))
        .collect();
    let (generated, version) = (
        app.world().resource::<ReliefStats>().chunks_generated,
        app.world().resource::<LaidRoads>().version,
    );
    // The terrace rises by 5 m; a settings edit asks for the region again.
    height.store(285.0f64.to_bits(), Ordering::Relaxed);
    app.world_mut()
        .resource_mut::<TerrainSettings>()
        .roads
        .earthworks
        .max_fill += 1.0;
    // Every frame on the way, each chunk's ribbons lie on its own mesh: they
    // are swapped in with it.
    run_until(&mut app, "the new terrace", |app| {
        ribbons_on_their_chunks(app);
        app.world().resource::<LaidRoads>().version > version && built_and_shown(app)
    });
    let after = chunk_meshes(&mut app);
    let mut remeshed = 0;
    for (k, id, vs) in &after {
        for v in vs.iter().filter(|v| on_terrace(**v)) {
            assert!(v.z == 285.0 || v.z < 284.0, "{v} on the old terrace");
        }
        if before.get(k) != Some(id) {
            remeshed += 1;
            // Only chunks over the terrace.
            let touches = vs
                .iter()
                .any(|v| (v.y - Y).abs() <= HALF + 70.0 && v.x >= X0 - 70.0 && v.x <= X1 + 70.0);
            assert!(touches, "{k:?} re-meshed far from the terrace");
        }
    }
    let built = app.world().resource::<ReliefStats>().chunks_generated - generated;
    assert!(
        remeshed > 0 && built as usize >= remeshed,
        "{remeshed} {built}"
    );
    assert!(
        remeshed * 4 < after.len(),
        "{remeshed} of {} chunks re-meshed",
        after.len()
    );
}

#[test]
fn a_mesh_setting_changed_live_meshes_every_shown_chunk_again() {
    let (mut app, _) = terrace_world(280.0);
    run_until(&mut app, "the terrace world", built_and_shown);
    let before: std::collections::HashSet<AssetId<Mesh>> =
        (chunk_meshes(&mut app).into_iter()).map(|c| c.1).collect();
    assert!(!before.is_empty());
    // As the inspector would: one sample a vertex instead of the filter.
    app.world_mut()
        .resource_mut::<TerrainSettings>()
        .view
        .built_filter = 0.0;
    run_until(&mut app, "every chunk meshed again", |app| {
        built_and_shown(app) && chunk_meshes(app).iter().all(|c| !before.contains(&c.1))
    });
}
