//! A cell's trees near and far. Near the focus each tree is an entity
//! wearing its variety's shared mesh (Bevy instances them). From
//! [`FAR_TREES`] on, all the cell's trees are one mesh of their far shapes,
//! built by the worker that places the cell: one entity instead of a
//! hundred or more, since the renderer's work each frame grows with the
//! entities it sees.
//!
//! A cell changes over without a gap: going far, its near trees stay until
//! the far mesh is shown; coming near, the far mesh stays until every near
//! tree is spawned, and is then hidden, not dropped (so a cell is uploaded
//! once however often the focus comes and goes).

use super::{CellKey, Instance, LiveCell, ObjectKind, ObjectManager, Spawn};
use crate::plugin::ReliefAssets;
use crate::plugin::stream::coords::FocusState;
use crate::plugin::stream::shapes::{FAR_TREES, far_trees_mesh};
use crate::plugin::stream::upload::UploadBudget;
use bevy::math::DVec3;
use bevy::prelude::*;
use std::sync::Arc;

/// Marks the entity of an object cell's far trees: one mesh for them all,
/// a child of the [`ObjectCell`](super::ObjectCell)'s entity.
#[derive(Component, Clone, Copy, Debug, Reflect)]
pub struct FarTrees {
    /// Trees in the mesh.
    pub trees: usize,
}

/// The focus moves this far before the trees' detail is chosen again,
/// metres; a cell goes far at [`FAR_TREES`] plus this, near again below
/// [`FAR_TREES`] (see [`far_trees`]).
pub(super) const DETAIL_STEP: f64 = 8.0;

/// Whether a cell's trees wear their far mesh, `far` now: far from
/// [`FAR_TREES`] plus [`DETAIL_STEP`], near again below [`FAR_TREES`] (so that
/// they do not flicker at the edge).
pub(super) fn far_trees(key: &CellKey, f: DVec3, top: f64, far: bool) -> bool {
    let d = key.view_distance(f, top);
    if far {
        d >= FAR_TREES
    } else {
        d >= FAR_TREES + DETAIL_STEP
    }
}

/// A cell's far mesh.
pub(super) enum FarMesh {
    /// Built, not uploaded until the cell is far (and the upload budget
    /// allows).
    Ready(Box<Mesh>),
    /// Uploaded, its entity `visible` or hidden.
    Shown { entity: Entity, visible: bool },
}

/// A cell's trees and how they are shown.
pub(super) struct CellTrees {
    /// The trees, in the cell's canonical order.
    pub list: Arc<[Instance]>,
    /// Whether they should wear their far mesh.
    pub far: bool,
    /// The parent of the near trees' entities, spawned or queued.
    pub near: Option<Entity>,
    /// Near tree entities spawned.
    pub near_spawned: usize,
    /// The far mesh (none without trees).
    pub mesh: Option<FarMesh>,
}

impl CellTrees {
    /// The trees of `instances`, `far` or near, and their far `mesh` (kept
    /// until it is wanted).
    pub fn new(instances: &[Instance], far: bool, mesh: Option<Mesh>) -> Self {
        let list: Arc<[Instance]> = (instances.iter())
            .filter(|i| matches!(i.kind, ObjectKind::Tree(_)))
            .cloned()
            .collect();
        Self {
            list,
            far,
            near: None,
            near_spawned: 0,
            mesh: mesh.map(|m| FarMesh::Ready(Box::new(m))),
        }
    }
}

/// The far mesh of a cell's trees (`list`), relative to the cell's anchor
/// `base`.
pub(super) fn far_mesh(list: &[Instance], base: DVec3) -> Option<Mesh> {
    far_trees_mesh(list.iter().filter_map(|i| match i.kind {
        ObjectKind::Tree(v) => Some((v as usize, i.transform(base).compute_affine())),
        _ => None,
    }))
}

/// What changing a cell's trees over needs from the frame.
pub(super) struct Frame<'a, 'w, 's> {
    pub commands: &'a mut Commands<'w, 's>,
    pub budget: &'a mut UploadBudget,
    pub meshes: &'a mut Assets<Mesh>,
    pub assets: &'a ReliefAssets,
}

impl ObjectManager {
    /// Takes a cell's trees a step towards their detail (see the module's
    /// docs); whether they are there.
    pub(super) fn settle(&mut self, key: CellKey, frame: &mut Frame) -> bool {
        let ObjectManager {
            cells,
            spawning,
            objects,
            far_trees,
            ..
        } = self;
        let Some(LiveCell { entity, trees, .. }) = cells.get_mut(&key) else {
            return true;
        };
        let t = trees;
        if t.mesh.is_none() {
            // No trees.
            return true;
        }
        if t.far {
            if let Some(FarMesh::Ready(_)) = t.mesh
                && !frame.budget.open()
            {
                return false;
            }
            t.mesh = match t.mesh.take() {
                Some(FarMesh::Ready(ready)) => {
                    let far = (
                        Name::new("far trees"),
                        FarTrees {
                            trees: t.list.len(),
                        },
                        Mesh3d(frame.budget.upload(frame.meshes, *ready)),
                        Transform::IDENTITY,
                        ChildOf(*entity),
                    );
                    let e = match &frame.assets.vertex {
                        Some(m) => frame.commands.spawn((far, MeshMaterial3d(m.clone()))),
                        None => frame.commands.spawn(far),
                    };
                    *far_trees += t.list.len();
                    Some(FarMesh::Shown {
                        entity: e.id(),
                        visible: true,
                    })
                }
                Some(FarMesh::Shown {
                    entity,
                    visible: false,
                }) => {
                    frame.commands.entity(entity).insert(Visibility::Inherited);
                    *far_trees += t.list.len();
                    Some(FarMesh::Shown {
                        entity,
                        visible: true,
                    })
                }
                shown => shown,
            };
            // The far mesh is shown: the near trees go.
            if let Some(group) = t.near.take() {
                frame.commands.entity(group).despawn();
                spawning.retain(|s| s.parent != group);
                *objects -= t.near_spawned;
                t.near_spawned = 0;
            }
            true
        } else {
            let group = *t.near.get_or_insert_with(|| {
                let group = (frame.commands)
                    .spawn((
                        Name::new("near trees"),
                        Transform::IDENTITY,
                        Visibility::Inherited,
                        ChildOf(*entity),
                    ))
                    .id();
                spawning.push_back(Spawn {
                    key,
                    parent: group,
                    list: t.list.to_vec(),
                });
                group
            });
            if spawning.iter().any(|s| s.parent == group) {
                return false;
            }
            // Every near tree is spawned: the far mesh hides.
            if let Some(FarMesh::Shown { entity, visible }) = &mut t.mesh
                && *visible
            {
                frame.commands.entity(*entity).insert(Visibility::Hidden);
                *visible = false;
                *far_trees -= t.list.len();
            }
            true
        }
    }
}

/// Chooses near or far for the trees of every cell again when the focus
/// has moved [`DETAIL_STEP`]; the cells that changed are changed over by
/// [`spawn_cells`](super::spawn_cells).
pub(crate) fn tree_detail(focus: Res<FocusState>, mut objects: ResMut<ObjectManager>) {
    let Some(f) = focus.world else {
        return;
    };
    let om = &mut *objects;
    if om.detail_at.is_some_and(|at| at.distance(f) < DETAIL_STEP) {
        return;
    }
    om.detail_at = Some(f);
    for (key, cell) in om.cells.iter_mut() {
        let now = far_trees(key, f, cell.top, cell.trees.far);
        if now != cell.trees.far {
            cell.trees.far = now;
            om.unsettled.insert(*key);
        }
    }
}
