//! The plugin group's parts and tools: leaving parts out, custom road
//! generators, cities, the planner tool, error slots, system sets, and what an
//! edit rebuilds.

use super::*;
use bevy_relief::plugin::CellKey;
use bevy_relief::plugin::UploadBudget;
use std::collections::{BTreeSet, HashMap};

/// The world with one part of the group left out.
fn without<P: Plugin>() -> App {
    let mut app = app_with(
        ReliefPlugin::default()
            .view_distance(1500.0)
            .object_radius(150.0)
            .plugins()
            .build()
            .disable::<P>(),
    );
    spawn_focus(&mut app, Vec3::new(0.0, 600.0, 0.0));
    app
}

/// The world without the floating origin, its focus 5 km east.
fn without_origin() -> App {
    let mut app = app_with(
        ReliefPlugin::default()
            .view_distance(1500.0)
            .object_radius(150.0)
            .plugins()
            .build()
            .disable::<bevy_relief::plugin::ReliefOriginPlugin>(),
    );
    spawn_focus(&mut app, Vec3::new(5000.0, 600.0, 0.0));
    app
}

fn objects(app: &mut App) -> usize {
    let mut q = app.world_mut().query::<&ReliefObject>();
    q.iter(app.world()).count()
}

#[test]
fn plugin_group_parts_can_be_left_out() {
    use bevy_relief::plugin::{
        ReliefChunksPlugin, ReliefCorePlugin, ReliefObjectsPlugin, ReliefRoadsPlugin,
    };
    let stats = |app: &App| app.world().resource::<ReliefStats>().clone();
    // No objects: ground and roads.
    let mut app = without::<ReliefObjectsPlugin>();
    run_until(&mut app, "ground and roads", |app| {
        let s = stats(app);
        s.complete && s.roads > 0
    });
    assert_eq!(objects(&mut app), 0);
    // No roads: ground, and objects all the same (they do not wait for
    // roads that never come).
    let mut app = without::<ReliefRoadsPlugin>();
    run_until(&mut app, "ground and objects", |app| {
        let s = stats(app);
        s.complete && s.objects > 0 && s.objects_pending == 0
    });
    assert!(app.world().resource::<LaidRoads>().ground.is_bare());
    assert!(objects(&mut app) > 0);
    // No chunks: roads and objects.
    let mut app = without::<ReliefChunksPlugin>();
    run_until(&mut app, "roads and objects", |app| {
        let s = stats(app);
        s.roads > 0 && s.objects > 0 && s.objects_pending == 0
    });
    assert_eq!(chunk_keys(&mut app).len(), 0);
    // No floating origin: everything streams around the focus, the origin
    // stays put.
    let mut app = without_origin();
    run_until(&mut app, "the whole world", settled);
    let s = stats(&app);
    assert!(s.roads > 0 && s.objects > 0 && s.ground_under_focus);
    assert_eq!(s.focus.unwrap().truncate(), DVec2::new(5000.0, 0.0));
    assert_eq!(app.world().resource::<RenderOrigin>().0, DVec2::ZERO);
    // No core: the other parts have nothing to work on and stay idle (no
    // panic).
    let mut app = without::<ReliefCorePlugin>();
    for _ in 0..5 {
        app.update();
    }
    assert!(!app.world().contains_resource::<TerrainState>());
    assert_eq!(objects(&mut app), 0);
}

/// A generator of one straight east–west road through every area, for
/// `with_roads`.
struct StraightRoad;

impl bevy_relief::roads::RoadGenerator for StraightRoad {
    fn generate(
        &self,
        _terrain: &Terrain,
        min: DVec2,
        max: DVec2,
    ) -> Result<bevy_relief::network::RoadNetwork, bevy_relief::roads::RoadError> {
        use bevy_relief::network::{Road, RoadClass, RoadNetwork};
        let y = 1300.0;
        let roads = (min.y <= y && y <= max.y)
            .then(|| Road {
                z: Vec::new(),
                // Whole 1 km pieces, so any area gets the same road there.
                points: vec![
                    DVec2::new((min.x / 1000.0).floor() * 1000.0, y),
                    DVec2::new((max.x / 1000.0).ceil() * 1000.0, y),
                ],
                class: RoadClass::Highway,
                width: 10.0,
            })
            .into_iter()
            .collect();
        Ok(RoadNetwork::from_roads(roads))
    }
}

#[test]
fn a_custom_road_generator_is_laid_and_drawn() {
    let mut app = app_with(small_world().with_roads(StraightRoad));
    spawn_focus(&mut app, Vec3::new(0.0, 600.0, 0.0));
    app.update();
    app.world_mut().resource_mut::<RenderOrigin>().0 = DVec2::new(19000.0, 1260.0);
    run_until(&mut app, "the road and the world", |app| {
        settled(app) && app.world().resource::<ReliefStats>().roads == 1
    });
    let laid = app.world().resource::<LaidRoads>().clone();
    assert_eq!(
        laid.roads.network().roads[0].class,
        bevy_relief::network::RoadClass::Highway
    );
    assert_eq!(laid.ground.terra(19003.0, 1300.0).kind, TerrainKind::Road);
    // Ribbons hang under the chunks, and no object stands on the road.
    let mut ribbons = app.world_mut().query::<&bevy_relief::plugin::ChunkRoads>();
    assert!(ribbons.iter(app.world()).count() > 0);
    let mut q = app.world_mut().query::<&ReliefObject>();
    for o in q.iter(app.world()) {
        assert!((o.world.y - 1300.0).abs() > 5.0, "{:?} on the road", o.kind);
    }
}

#[test]
fn cities_are_town_ground_with_highways_and_no_trees() {
    let mut app = app_with(small_world().object_radius(500.0));
    // The least upload budget: a city's tiles take many frames.
    let mut settings = app.world_mut().resource_mut::<TerrainSettings>();
    settings.view.upload_mib_per_frame = 0.0625;
    // Near the edge of the city of cell (1, 0), centre about (9850, 4250).
    spawn_focus(&mut app, Vec3::new(0.0, 600.0, 0.0));
    app.update();
    app.world_mut().resource_mut::<RenderOrigin>().0 = DVec2::new(9850.0, 5150.0);
    // A city is shown whole: its tiles never change while it stands, and
    // no frame hands over more of the meshes that can wait than the budget
    // and the mesh crossing it (the chunks' ground and ribbons cannot wait:
    // up to `chunk_uploads_per_frame` chunks go whatever their size).
    let mut seen: HashMap<Entity, usize> = HashMap::new();
    let mut frames_with_uploads = 0;
    let mut watch = |app: &mut App| {
        let mut q = app
            .world_mut()
            .query::<(Entity, &bevy_relief::plugin::CityBuildings, &Children)>();
        for (e, _, children) in q.iter(app.world()) {
            let n = *seen.entry(e).or_insert(children.len());
            assert_eq!(n, children.len(), "a city's tiles changed while it stood");
        }
        let budget = app.world().resource::<UploadBudget>();
        let (spent, waited) = (budget.spent(), budget.spent() - budget.forced());
        assert!(
            waited < (1 << 16) + (3 << 20),
            "{waited} bytes that could wait"
        );
        frames_with_uploads += (spent > 0) as usize;
    };
    run_until(&mut app, "roads, cities and objects", |app| {
        watch(app);
        settled(app) && app.world().resource::<ReliefStats>().roads > 0
    });
    let laid = app.world().resource::<LaidRoads>().clone();
    let cities = laid.cities.cities();
    assert!(!cities.is_empty(), "no city laid");
    let net = laid.roads.network();
    assert!(
        net.roads
            .iter()
            .any(|r| r.class == bevy_relief::network::RoadClass::Highway),
        "no highway"
    );
    let c = &cities[0];
    assert_eq!(
        laid.ground.terra(c.centre.x, c.centre.y).kind,
        TerrainKind::Town
    );
    // The city's streets are roads of the network, and its buildings come
    // as one mesh entity.
    assert!(laid.layouts.iter().any(|l| l.city.id == c.id));
    assert!(
        net.roads
            .iter()
            .any(|r| r.class == bevy_relief::network::RoadClass::Street),
        "no street"
    );
    run_until(&mut app, "city buildings", |app| {
        watch(app);
        let mut q = app
            .world_mut()
            .query::<&bevy_relief::plugin::CityBuildings>();
        q.iter(app.world()).any(|b| b.buildings > 100)
    });
    assert!(frames_with_uploads > 20, "{frames_with_uploads} frames");
    // In tiles: a child mesh each, with bounds of its own (culled apart).
    use bevy::camera::primitives::MeshAabb;
    let mut q = app
        .world_mut()
        .query::<(&bevy_relief::plugin::CityBuildings, &Children)>();
    let tiles = (q.iter(app.world()))
        .find(|(b, _)| b.buildings > 100)
        .map(|(_, c)| c.to_vec())
        .expect("a city with its tiles");
    assert!(tiles.len() > 1, "{} tiles", tiles.len());
    let meshes = app.world().resource::<Assets<Mesh>>();
    let mut boxes = Vec::new();
    for &t in &tiles {
        let m = app.world().get::<Mesh3d>(t).expect("a tile's mesh");
        let aabb = (meshes.get(&m.0))
            .and_then(|m| m.compute_aabb())
            .expect("a tile's bounds");
        boxes.push((aabb.center.x, aabb.center.z));
    }
    boxes.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    boxes.dedup();
    assert_eq!(boxes.len(), tiles.len(), "tiles in one place");
    // Objects came, and no tree or village house stands in a city.
    let mut q = app.world_mut().query::<&ReliefObject>();
    let mut n = 0;
    for o in q.iter(app.world()) {
        n += 1;
        if matches!(o.kind, ObjectKind::Tree(_) | ObjectKind::Building(_)) {
            // Ground is laid by whole-metre cell: the cell's centre counts.
            let p = o.world.truncate().round();
            assert!(
                !cities.iter().any(|c| c.contains(p)),
                "{:?} at {} in a city",
                o.kind,
                o.world
            );
        }
    }
    assert!(n > 0, "no objects at all");
}

/// The planner tool's last road (it must have one, and without an error).
/// The small world with the planner tool, its focus placed, one frame run.
fn app_with_planner_tool() -> App {
    let mut app = app_with((small_world(), bevy_relief::plugin::ReliefPlannerToolPlugin));
    app.init_resource::<ButtonInput<KeyCode>>();
    spawn_focus(&mut app, Vec3::new(0.0, 600.0, 0.0));
    app.update();
    app
}

fn last_road(app: &App) -> bevy_relief::plugin::PlanSummary {
    use bevy_relief::plugin::PlannerTool;
    let last = app.world().resource::<PlannerTool>().last.clone();
    last.expect("a road").expect("no planning error")
}

#[test]
fn the_planner_tool_plans_and_draws_a_road_and_replans_on_a_change() {
    use bevy_relief::plugin::{PlannerChoice, PlannerTool};
    let mut app = app_with_planner_tool();
    // Two dry points about a kilometre apart.
    let terrain = app.world().resource::<TerrainState>().terrain.clone();
    let dry = |mut p: DVec2| {
        while terrain.height(p.x, p.y) < terrain.params().lake_level + 1.0 {
            p.x += 10.0;
        }
        p
    };
    let (from, to) = (
        dry(DVec2::new(18700.0, 1000.0)),
        dry(DVec2::new(19500.0, 1500.0)),
    );
    {
        let mut tool = app.world_mut().resource_mut::<PlannerTool>();
        tool.start = Some(from);
        tool.end = Some(to);
    }
    let done = |app: &mut App| app.world().resource::<PlannerTool>().last.is_some();
    run_until(&mut app, "the first road", done);
    let first = last_road(&app);
    assert!(
        first.length >= from.distance(to) && first.cost > 0.0,
        "{first:?}"
    );
    let mut q = app.world_mut().query::<&Name>();
    assert!(q.iter(app.world()).any(|n| n.as_str() == "planned road"));
    // Another planner: planned anew.
    {
        let mut tool = app.world_mut().resource_mut::<PlannerTool>();
        tool.planner = PlannerChoice::Sequential;
        tool.last = None;
    }
    run_until(&mut app, "the sequential road", done);
    let second = last_road(&app);
    assert_ne!(first, second);
    let roads = q
        .iter(app.world())
        .filter(|n| n.as_str() == "planned road")
        .count();
    assert_eq!(roads, 1, "the old road is replaced");
}

/// A road source that always fails.
struct NoRoads;

impl bevy_relief::roads::RoadGenerator for NoRoads {
    fn generate(
        &self,
        _terrain: &Terrain,
        min: DVec2,
        max: DVec2,
    ) -> Result<bevy_relief::network::RoadNetwork, bevy_relief::roads::RoadError> {
        let size = max - min;
        Err(bevy_relief::roads::RoadAreaError::TooLarge {
            width: size.x,
            height: size.y,
        }
        .into())
    }
}

#[test]
fn settings_and_roads_keep_an_error_each() {
    let mut app = app_with(small_world().with_roads(NoRoads));
    spawn_focus(&mut app, Vec3::new(0.0, 600.0, 0.0));
    let state = |app: &App| app.world().resource::<TerrainState>().clone();
    run_until(&mut app, "the roads' error", |app| {
        state(app).roads_error.is_some()
    });
    // Bad settings: their error stands beside the roads'.
    let good = app.world().resource::<TerrainSettings>().view.clone();
    app.world_mut()
        .resource_mut::<TerrainSettings>()
        .view
        .view_distance = 1.0;
    app.update();
    let s = state(&app);
    let e = s.settings_error.as_ref().expect("settings rejected");
    assert!(e.to_string().contains("view.view_distance"), "{e}");
    assert!(s.roads_error.is_some());
    assert_eq!(s.errors().count(), 2);
    // Good settings clear their own error only.
    app.world_mut().resource_mut::<TerrainSettings>().view = good;
    app.update();
    let s = state(&app);
    assert_eq!(s.settings_error, None);
    assert!(s.roads_error.is_some());
    // Roads off: no roads, no roads' error.
    app.world_mut()
        .resource_mut::<TerrainSettings>()
        .view
        .road_radius = 0.0;
    app.update();
    assert_eq!(state(&app).errors().count(), 0);
}

#[test]
fn every_system_of_ours_is_in_a_relief_set() {
    use bevy::ecs::schedule::NodeId;
    use bevy::ecs::schedule::graph::Direction;
    let app = app_with_planner_tool();
    let mut ours = 0;
    for (label, schedule) in app.world().resource::<Schedules>().iter() {
        let graph = schedule.graph();
        // A schedule that ran keeps its systems in its executable.
        let systems: Vec<_> = match schedule.systems() {
            Ok(run) => run.collect(),
            Err(_) => graph.systems.iter().map(|(k, s, _)| (k, s)).collect(),
        };
        for (key, system) in systems {
            let name = system.name().to_string();
            if !name.starts_with("bevy_relief") {
                continue;
            }
            ours += 1;
            let in_ours = (graph.hierarchy().graph())
                .neighbors_directed(NodeId::System(key), Direction::Incoming)
                .any(|n| match n {
                    NodeId::Set(k) => graph
                        .system_sets
                        .get(k)
                        .is_some_and(|set| ReliefSystems::ALL.iter().any(|r| set.dyn_eq(r))),
                    NodeId::System(_) => false,
                });
            assert!(in_ours, "{name} (in {label:?}) is in no ReliefSystems set");
        }
    }
    assert!(ours >= 15, "only {ours} systems of ours");
}

/// Roads laid anew over live object cells (twice as many contour roads):
/// the cells they cross are placed again (the check runs on a worker), so
/// once the world settles nothing stands on a road of the new network.
#[test]
fn objects_make_way_for_roads_laid_anew() {
    let mut app = world_over_roads(|_| {});
    let (version, roads) = (
        app.world().resource::<LaidRoads>().version,
        app.world().resource::<ReliefStats>().roads,
    );
    (app.world_mut().resource_mut::<TerrainSettings>())
        .roads
        .contour
        .density *= 2.0;
    run_until(&mut app, "the denser roads", |app| {
        app.world().resource::<LaidRoads>().version > version && roads_settled(app)
    });
    let laid = app.world().resource::<LaidRoads>().clone();
    assert!(app.world().resource::<ReliefStats>().roads > roads);
    let (objects, on_roads) = objects_on_roads(&mut app, &laid.roads, |k| {
        matches!(k, ObjectKind::Tree(_) | ObjectKind::Feature(_))
    });
    assert!(objects > 100, "{objects}");
    assert_eq!(on_roads, 0, "of {objects} objects");
}

#[test]
fn a_contour_road_edit_rebuilds_no_city_mesh() {
    let mut app = app_with(small_world());
    // Near the city of cell (1, 0), centre about (9850, 4250).
    spawn_focus(&mut app, Vec3::new(0.0, 600.0, 0.0));
    app.update();
    app.world_mut().resource_mut::<RenderOrigin>().0 = DVec2::new(9850.0, 5150.0);
    let stats = |app: &App| app.world().resource::<ReliefStats>().clone();
    let done = |app: &mut App| {
        let s = stats(app);
        settled(app) && s.cities > 0 && s.cities_pending == 0
    };
    run_until(&mut app, "roads and city buildings", done);
    let city_entities = |app: &mut App| {
        let mut q = app
            .world_mut()
            .query_filtered::<Entity, With<bevy_relief::plugin::CityBuildings>>();
        let mut e: Vec<Entity> = q.iter(app.world()).collect();
        e.sort();
        e
    };
    let (before, built) = (city_entities(&mut app), stats(&app).city_meshes_built);
    let version = app.world().resource::<LaidRoads>().version;
    app.world_mut()
        .resource_mut::<TerrainSettings>()
        .roads
        .contour
        .density *= 2.0;
    run_until(&mut app, "the denser roads", |app| {
        app.world().resource::<LaidRoads>().version > version && done(app)
    });
    assert_eq!(stats(&app).city_meshes_built, built);
    assert_eq!(city_entities(&mut app), before);
}

/// Trees of object cells at least `FAR_TREES` from the focus are one far
/// mesh a cell, nearer ones an entity each with their near mesh, and they
/// change over as the focus moves. Returns (near, far) trees counted, and
/// prints the trees' triangles and entities against near meshes only.
fn tree_meshes_follow_the_distance(app: &mut App, focus: Entity) -> (usize, usize) {
    use bevy_relief::plugin::{FAR_TREES, FarTrees, OBJECT_CELL, ObjectCell, ReliefAssets};
    let assets = app.world().resource::<ReliefAssets>().clone();
    let origin = *app.world().resource::<RenderOrigin>();
    let ground = app.world().resource::<LaidRoads>().ground.clone();
    let f = origin.to_world(app.world().get::<Transform>(focus).unwrap().translation);
    // Each cell's trees, and its highest ground contact: its trees' (from the
    // core) and its other objects' (entities near and far).
    let mut cells = app.world_mut().query::<&ObjectCell>();
    let (mut tops, mut trees) = (HashMap::new(), HashMap::new());
    for c in cells.iter(app.world()) {
        let (n, top) = cell_trees(&ground, c.0);
        trees.insert(c.0, n);
        tops.insert(c.0, top);
    }
    let mut q = app.world_mut().query::<(&ReliefObject, &ChildOf)>();
    for (o, parent) in q.iter(app.world()) {
        let top = (tops.get_mut(&cell_of(app.world(), parent.parent()))).expect("a live cell");
        *top = top.max(o.world.z);
    }
    let mut q = app
        .world_mut()
        .query::<(&ReliefObject, &Mesh3d, &ChildOf)>();
    let mut far_q = app
        .world_mut()
        .query::<(&FarTrees, &Mesh3d, &ChildOf, Option<&Visibility>)>();
    let meshes = app.world().resource::<Assets<Mesh>>();
    let tris = |h: &Handle<Mesh>| {
        (meshes.get(h)).map_or(0, |m| {
            m.indices().map_or(m.count_vertices(), |i| i.len()) / 3
        })
    };
    let (mut near, mut far, mut drawn, mut entities, mut bytes) = (0, 0, 0, 0, 0);
    let mut shown: HashMap<CellKey, (usize, usize)> = HashMap::new();
    for (o, mesh, parent) in q.iter(app.world()) {
        let ObjectKind::Tree(v) = o.kind else {
            continue;
        };
        let key = cell_of(app.world(), parent.parent());
        let d = key.view_distance(f, tops[&key]);
        assert!(d < FAR_TREES + 8.0, "a near tree {d:.0} m away");
        assert_eq!(mesh.0, assets.trees[v as usize % assets.trees.len()]);
        drawn += tris(&mesh.0);
        entities += 1;
        shown.entry(key).or_default().0 += 1;
        near += (d < FAR_TREES) as usize;
    }
    for (t, mesh, parent, visibility) in far_q.iter(app.world()) {
        let key = cell_of(app.world(), parent.parent());
        assert_eq!(t.trees, trees[&key], "the trees of cell {key:?}");
        if visibility == Some(&Visibility::Hidden) {
            // Kept for the next time the cell is far.
            continue;
        }
        let d = key.view_distance(f, tops[&key]);
        assert!(d >= FAR_TREES, "far trees {d:.0} m away");
        drawn += tris(&mesh.0);
        entities += 1;
        bytes += (meshes.get(&mesh.0)).map_or(0, |m| {
            m.get_vertex_buffer_size() + m.get_index_buffer_bytes().map_or(0, <[u8]>::len)
        });
        shown.entry(key).or_default().1 += t.trees;
        far += (d >= FAR_TREES + 8.0) as usize * t.trees;
    }
    // Every cell shows each of its trees once, near or far.
    for (key, n) in &trees {
        let (near, far) = shown.get(key).copied().unwrap_or_default();
        assert!(
            (near, far) == (*n, 0) || (near, far) == (0, *n),
            "cell {key:?}: {near} near and {far} far of {n} trees"
        );
    }
    let far_shown: usize = shown.values().map(|s| s.1).sum();
    assert_eq!(app.world().resource::<ReliefStats>().far_trees, far_shown);
    let all: usize = trees.values().sum();
    let all_near: usize = (trees.keys())
        .flat_map(|key| {
            let min = key.corner();
            ground.trees_in(min, min + DVec2::splat(OBJECT_CELL))
        })
        .map(|t| tris(&assets.trees[t.variety as usize % assets.trees.len()]))
        .sum();
    println!(
        "trees: {near} near, {far} far; {drawn} triangles in {entities} entities drawn \
         (far meshes {:.2} MiB), {all_near} in {all} with near meshes only",
        bytes as f64 / (1 << 20) as f64
    );
    (near, far)
}

/// A cell's trees in the core: how many, and their highest ground contact.
fn cell_trees(ground: &bevy_relief::terrain::LaidGround, key: CellKey) -> (usize, f64) {
    let min = key.corner();
    (ground.trees_in(min, min + DVec2::splat(bevy_relief::plugin::OBJECT_CELL)))
        .fold((0, f64::NEG_INFINITY), |(n, top), t| (n + 1, top.max(t.z)))
}

/// The object cell an entity stands under.
fn cell_of(world: &World, mut e: Entity) -> CellKey {
    loop {
        if let Some(c) = world.get::<bevy_relief::plugin::ObjectCell>(e) {
            return c.0;
        }
        e = world.get::<ChildOf>(e).expect("under a cell").parent();
    }
}

/// The object cells whose trees are all shown, near (an entity each) or
/// far (a visible far mesh), and all the cells; `trees` keeps each cell's
/// count of trees.
fn cells_whole(
    app: &mut App,
    trees: &mut HashMap<CellKey, usize>,
) -> (BTreeSet<CellKey>, BTreeSet<CellKey>) {
    use bevy_relief::plugin::{FarTrees, ObjectCell};
    let ground = app.world().resource::<LaidRoads>().ground.clone();
    let mut near: HashMap<CellKey, usize> = HashMap::new();
    let mut q = app.world_mut().query::<(&ReliefObject, &ChildOf)>();
    for (o, parent) in q.iter(app.world()) {
        if matches!(o.kind, ObjectKind::Tree(_)) {
            *near
                .entry(cell_of(app.world(), parent.parent()))
                .or_default() += 1;
        }
    }
    let mut far = BTreeSet::new();
    let mut q = app
        .world_mut()
        .query::<(&FarTrees, &ChildOf, Option<&Visibility>)>();
    for (_, parent, visibility) in q.iter(app.world()) {
        if visibility != Some(&Visibility::Hidden) {
            far.insert(cell_of(app.world(), parent.parent()));
        }
    }
    let mut cells = app.world_mut().query::<&ObjectCell>();
    let live: BTreeSet<CellKey> = cells.iter(app.world()).map(|c| c.0).collect();
    let whole = (live.iter().copied())
        .filter(|key| {
            let n = *trees
                .entry(*key)
                .or_insert_with(|| cell_trees(&ground, *key).0);
            n == 0 || near.get(key) == Some(&n) || far.contains(key)
        })
        .collect();
    (whole, live)
}

#[test]
fn far_trees_wear_their_far_mesh_and_change_over_as_the_focus_moves() {
    let mut app = app_with(small_world().object_radius(500.0));
    let focus = spawn_focus(&mut app, Vec3::new(285.0, 400.0, -389.0));
    // Moves the focus by `by` (render axes), waits for the objects, counts.
    // Frame by frame, a cell whose trees were all shown still shows them
    // all (near or far) while it changes over: no gap.
    let mut trees = HashMap::new();
    let mut after = |app: &mut App, by: Vec3| {
        let (whole, _) = cells_whole(app, &mut trees);
        app.world_mut()
            .get_mut::<Transform>(focus)
            .unwrap()
            .translation += by;
        let mut frames = 0;
        run_until(app, "the objects", |app| {
            let (now, live) = cells_whole(app, &mut trees);
            for key in whole.intersection(&live) {
                assert!(now.contains(key), "cell {key:?} shows part of its trees");
            }
            frames += 1;
            settled(app)
        });
        assert!(frames > 1, "the trees changed over at once");
        app.update();
        tree_meshes_follow_the_distance(app, focus)
    };
    let (near, far) = after(&mut app, Vec3::ZERO);
    assert!(near > 100 && far > 100, "{near} near, {far} far");
    // 250 m east: trees that were far are near now, and the other way.
    let (near, far) = after(&mut app, Vec3::X * 250.0);
    assert!(near > 100 && far > 100, "{near} near, {far} far");
    // 400 m up: every tree is far below.
    let (near, far) = after(&mut app, Vec3::Y * 400.0);
    assert!(near == 0 && far > 100, "{near} near, {far} far");
}
