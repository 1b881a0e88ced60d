//! City buildings around the focus: every city laid with the roads
//! ([`LaidRoads::layouts`]) gets one entity, and under it one mesh of the
//! buildings in each [`CITY_TILE`] square (so that the renderer culls the
//! tiles out of view), built on a worker thread, each building standing on
//! its base (the level pad the world built for it). The tiles go to the
//! renderer within the frame's [`UploadBudget`] (a city may take several
//! frames), and the city is shown once all are there. (Its streets are
//! roads of the laid network, drawn as ribbons with the other roads.) A
//! mesh is keyed on what it is built from (the buildings and the terrain),
//! so re-laid roads rebuild only the cities whose buildings changed. A city
//! no longer laid goes; a changed one's mesh is swapped when the new one is
//! ready, so it never blinks out.

use super::buildings::add_building;
use super::coords::{FocusState, RenderOrigin, WorldAnchor};
use super::mesh::MeshLists;
use super::roads::LaidRoads;
use super::settings::TerrainState;
use super::tasks::{Job, ReliefWorkers};
use super::upload::UploadBudget;
use crate::city::CityLayout;
use crate::plugin::ReliefAssets;
use bevy::math::DVec3;
use bevy::prelude::*;
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// Side of the squares a city's buildings are meshed by, metres (from the
/// city's centre; a building goes by its footprint's first corner).
pub const CITY_TILE: f64 = 256.0;

/// Marks a city's buildings entity (its tiles' meshes are its children).
#[derive(Component, Clone, Copy, Debug, Reflect)]
pub struct CityBuildings {
    /// The city's id (its settlement cell).
    pub city: (i64, i64),
    /// How many buildings its tiles hold.
    pub buildings: usize,
}

/// A city's finished buildings: a mesh per tile with buildings.
struct Built {
    meshes: Vec<Mesh>,
    buildings: usize,
}

/// A built city on its way to the renderer: the tiles' meshes still to go,
/// and the handles of those gone.
struct Uploading {
    left: Vec<Mesh>,
    handles: Vec<Handle<Mesh>>,
    buildings: usize,
}

/// What a city's mesh is built from: a hash of its buildings (footprints,
/// heights and bases) and centre (the mesh's anchor), and the terrain generation
/// they stand on. Equal keys, equal meshes, whatever layout object brought
/// them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct MeshKey {
    content: u64,
    generation: u64,
}

impl MeshKey {
    fn new(layout: &CityLayout, generation: u64) -> Self {
        let mut h = std::hash::DefaultHasher::new();
        let c = layout.city.centre;
        (c.x.to_bits(), c.y.to_bits()).hash(&mut h);
        for b in layout.buildings() {
            (b.height.to_bits(), b.base.to_bits(), b.footprint.len()).hash(&mut h);
            for p in &b.footprint {
                (p.x.to_bits(), p.y.to_bits()).hash(&mut h);
            }
        }
        Self {
            content: h.finish(),
            generation,
        }
    }
}

/// A city shown or being built: the layout it was built from and its key.
struct Keyed<T> {
    layout: Arc<CityLayout>,
    key: MeshKey,
    item: T,
}

/// City bookkeeping.
#[derive(Resource, Default)]
pub struct CityManager {
    /// Cities shown, with their entity.
    shown: BTreeMap<(i64, i64), Keyed<Entity>>,
    /// City meshes being built.
    pending: BTreeMap<(i64, i64), Keyed<Job<Built>>>,
    /// Built cities going to the renderer.
    ready: BTreeMap<(i64, i64), Keyed<Uploading>>,
    /// The laid-roads version last looked at.
    version: u64,
    /// City meshes built since start.
    pub(crate) built: u64,
}

impl CityManager {
    /// Cities shown.
    pub(crate) fn shown_count(&self) -> usize {
        self.shown.len()
    }

    /// City meshes being built or going to the renderer.
    pub(crate) fn pending_count(&self) -> usize {
        self.pending.len() + self.ready.len()
    }

    /// The key of `layout`: hashed anew only for a layout object not
    /// already shown, pending or uploading for its city.
    fn key(&self, layout: &Arc<CityLayout>, generation: u64) -> MeshKey {
        let id = layout.city.id;
        let known = (self.shown.get(&id).map(|k| (&k.layout, k.key)))
            .into_iter()
            .chain(self.pending.get(&id).map(|k| (&k.layout, k.key)))
            .chain(self.ready.get(&id).map(|k| (&k.layout, k.key)))
            .find(|(l, k)| Arc::ptr_eq(l, layout) && k.generation == generation);
        known.map_or_else(|| MeshKey::new(layout, generation), |(_, k)| k)
    }
}

/// Starts meshes for newly laid cities (and cities whose buildings
/// changed), hands finished ones to the renderer (the nearest city first,
/// within the frame's budget) and spawns those all there, and takes away
/// cities no longer laid.
#[allow(clippy::too_many_arguments)]
pub(crate) fn update_cities(
    mut commands: Commands,
    laid: Res<LaidRoads>,
    state: Res<TerrainState>,
    focus: Res<FocusState>,
    workers: Res<ReliefWorkers>,
    origin: Res<RenderOrigin>,
    assets: Res<ReliefAssets>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut budget: ResMut<UploadBudget>,
    mut cities: ResMut<CityManager>,
) {
    let cm = &mut *cities;
    if cm.version != laid.version {
        cm.version = laid.version;
        let wanted: BTreeMap<(i64, i64), (&Arc<CityLayout>, MeshKey)> = (laid.layouts.iter())
            .map(|l| (l.city.id, (l, cm.key(l, state.generation))))
            .collect();
        // Gone, or laid anew with other buildings.
        cm.pending
            .retain(|id, p| wanted.get(id).is_some_and(|w| w.1 == p.key));
        cm.ready
            .retain(|id, p| wanted.get(id).is_some_and(|w| w.1 == p.key));
        let gone: Vec<(i64, i64)> = (cm.shown.keys())
            .filter(|id| !wanted.contains_key(*id))
            .copied()
            .collect();
        for id in gone {
            if let Some(s) = cm.shown.remove(&id) {
                commands.entity(s.item).despawn();
            }
        }
        for (id, (layout, key)) in wanted {
            if let Some(s) = cm.shown.get_mut(&id)
                && s.key == key
            {
                // The same buildings: the mesh stands (the new layout object
                // is remembered, so that it is not hashed again).
                s.layout = layout.clone();
                cm.pending.remove(&id);
                cm.ready.remove(&id);
                continue;
            }
            if cm.pending.contains_key(&id) || cm.ready.contains_key(&id) {
                continue;
            }
            let (job_layout, ground) = (layout.clone(), laid.ground.clone());
            let job = workers.spawn(move || {
                let c = job_layout.city.centre;
                let anchor = DVec3::new(c.x, c.y, 0.0);
                let mut tiles: BTreeMap<(i64, i64), MeshLists> = BTreeMap::new();
                let mut n = 0;
                for b in job_layout.buildings() {
                    let Some(&p) = b.footprint.first() else {
                        continue;
                    };
                    // (A footprint that is not finite is left out below.)
                    let t = ((p - c) / CITY_TILE).floor();
                    add_building(
                        tiles.entry((t.x as i64, t.y as i64)).or_default(),
                        &b.footprint,
                        b.height,
                        b.base,
                        |p| ground.height(p.x, p.y),
                        anchor,
                    );
                    n += 1;
                }
                Built {
                    meshes: (tiles.into_values())
                        .filter(|m| !m.is_empty())
                        .map(MeshLists::into_mesh)
                        .collect(),
                    buildings: n,
                }
            });
            let layout = layout.clone();
            (cm.pending).insert(
                id,
                Keyed {
                    layout,
                    key,
                    item: job,
                },
            );
        }
    }
    cm.pending.retain(|id, p| match p.item.take() {
        Some(built) => {
            let item = Uploading {
                left: built.meshes,
                handles: Vec::new(),
                buildings: built.buildings,
            };
            let (layout, key) = (p.layout.clone(), p.key);
            cm.ready.insert(*id, Keyed { layout, key, item });
            false
        }
        None => true,
    });
    let Some(f) = focus.world.map(|f| f.truncate()) else {
        return;
    };
    if cm.ready.is_empty() || !budget.open() {
        return;
    }
    // The nearest city first.
    let mut order: Vec<((i64, i64), f64)> = (cm.ready.iter())
        .map(|(id, c)| (*id, c.layout.city.centre.distance_squared(f)))
        .collect();
    order.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
    for (id, _) in order {
        let Some(c) = cm.ready.get_mut(&id) else {
            continue;
        };
        while budget.open()
            && let Some(mesh) = c.item.left.pop()
        {
            c.item.handles.push(budget.upload(&mut meshes, mesh));
        }
        if !c.item.left.is_empty() {
            break;
        }
        let Some(Keyed { layout, key, item }) = cm.ready.remove(&id) else {
            continue;
        };
        cm.built += 1;
        let c = layout.city.centre;
        let anchor = WorldAnchor(DVec3::new(c.x, c.y, 0.0));
        let mut e = commands.spawn((
            Name::new(format!("city buildings {id:?}")),
            CityBuildings {
                city: id,
                buildings: item.buildings,
            },
            anchor,
            Transform::from_translation(origin.to_render(anchor.0)),
            Visibility::Inherited,
        ));
        // The tiles' vertices are relative to the city's centre, as the
        // parent stands; each tile's bounds are its own.
        e.with_children(|city| {
            for mesh in item.handles {
                let mut tile =
                    city.spawn((Transform::IDENTITY, Visibility::Inherited, Mesh3d(mesh)));
                if let Some(m) = &assets.vertex {
                    tile.insert(MeshMaterial3d(m.clone()));
                }
            }
        });
        let item = e.id();
        if let Some(old) = cm.shown.insert(id, Keyed { layout, key, item }) {
            commands.entity(old.item).despawn();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::city::{CityParams, SettlementParams, Settlements, lay_out};
    use crate::terrain::Terrain;
    use bevy::math::DVec2;

    #[test]
    fn a_city_s_buildings_are_a_small_part_of_a_frame_s_triangles() {
        // The organic city of cell (1, 0) and the planned one of (2, 1), all
        // their buildings meshed: about 13 triangles a building (walls and
        // a gabled or flat roof), 31–39 k a city, against 356–373 k in view
        // at p50 over the rendered route. A far level of boxes would save a
        // tenth of that; that is why buildings have none.
        let t = Terrain::default();
        let s = Settlements::new(SettlementParams::default()).unwrap();
        let (min, max) = (DVec2::new(8200.0, 2800.0), DVec2::new(17500.0, 9500.0));
        let mut cities = s.cities_in(&t, min, max);
        cities.retain(|c| [(1, 0), (2, 1)].contains(&c.id));
        assert_eq!(cities.len(), 2);
        let ground = |p: DVec2| t.height(p.x, p.y);
        for city in cities {
            let layout = lay_out(&city, &t, &[], &CityParams::default()).unwrap();
            let mut m = MeshLists::default();
            let n = layout.buildings().count();
            for b in layout.buildings() {
                add_building(&mut m, &b.footprint, b.height, b.base, ground, DVec3::ZERO);
            }
            let triangles = m.indices.len() / 3;
            println!("city {:?}: {n} buildings, {triangles} triangles", city.id);
            assert!(n > 2000, "{n}");
            assert!((10 * n..16 * n).contains(&triangles), "{triangles}");
        }
    }

    #[test]
    fn a_mesh_key_follows_the_buildings_not_the_layout_object() {
        let t = Terrain::default();
        let s = Settlements::new(SettlementParams::default()).unwrap();
        let (min, max) = (DVec2::new(8200.0, 2800.0), DVec2::new(11200.0, 5800.0));
        let city = s
            .cities_in(&t, min, max)
            .into_iter()
            .next()
            .expect("a city");
        let layout = lay_out(&city, &t, &[], &CityParams::default()).unwrap();
        assert!(layout.buildings().count() > 0);
        // Another object with the same buildings: the same key.
        let (a, b) = (Arc::new(layout.clone()), Arc::new(layout.clone()));
        assert_eq!(MeshKey::new(&a, 3), MeshKey::new(&b, 3));
        // Another terrain, or one building taller: another key.
        assert_ne!(MeshKey::new(&a, 3), MeshKey::new(&a, 4));
        let mut taller = layout;
        let b = (taller.lots.iter_mut())
            .find_map(|l| l.building.as_mut())
            .unwrap();
        b.height += 1.0;
        assert_ne!(MeshKey::new(&a, 3), MeshKey::new(&taller, 3));
    }
}
