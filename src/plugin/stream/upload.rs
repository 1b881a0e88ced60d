//! The frame's upload budget: the bytes of streamed meshes (ground chunks
//! and their road ribbons, structures, city buildings, far trees) handed to the
//! renderer in one frame, shared by the parts that stream them. A frame
//! that uploads a whole region's meshes at once stalls the render thread;
//! one budget for all keeps the sum small, whichever parts a game adds.
//!
//! [`ReliefCorePlugin`](crate::plugin::ReliefCorePlugin), which every part
//! needs, owns it and refills it at the start of the relief's systems
//! ([`ReliefSystems::Settings`](crate::plugin::ReliefSystems)); the parts
//! draw on it in their systems' order: the ground first (a missing chunk is
//! a hole: its meshes are counted but never held back, within their own
//! count cap), then structures, then cities' buildings, then far trees,
//! with what is left.

use super::mesh::render_only;
use super::settings::TerrainState;
use bevy::prelude::*;

/// Bytes in a mebibyte.
const MIB: f64 = (1 << 20) as f64;

/// What the streaming parts may still hand the renderer this frame
/// (`ViewSettings::upload_mib_per_frame`), and what they handed it.
#[derive(Resource, Clone, Copy, Debug, Default, Reflect)]
#[reflect(Resource)]
pub struct UploadBudget {
    /// The frame's budget, bytes.
    per_frame: usize,
    /// Bytes handed over this frame.
    spent: usize,
    /// Of those, the bytes of meshes that could not wait.
    forced: usize,
}

impl UploadBudget {
    /// A full budget of `per_frame` bytes.
    pub fn new(per_frame: usize) -> Self {
        Self {
            per_frame,
            spent: 0,
            forced: 0,
        }
    }

    /// Whether another mesh that can wait may go this frame: until the bytes
    /// handed over reach the budget (the mesh that crosses it goes too, so a
    /// frame hands over one at least).
    pub fn open(&self) -> bool {
        self.spent < self.per_frame
    }

    /// Bytes handed to the renderer this frame.
    pub fn spent(&self) -> usize {
        self.spent
    }

    /// Of [`spent`](Self::spent), the bytes handed over by
    /// [`upload_now`](Self::upload_now).
    pub fn forced(&self) -> usize {
        self.forced
    }

    /// Hands `mesh`, one that can wait (ask [`open`](Self::open) first), to
    /// the renderer (for it alone: its data leave the main world once
    /// uploaded) and counts its bytes.
    pub fn upload(&mut self, meshes: &mut Assets<Mesh>, mesh: Mesh) -> Handle<Mesh> {
        self.spent += mesh_bytes(&mesh);
        meshes.add(render_only(mesh))
    }

    /// [`upload`](Self::upload) for a mesh that cannot wait, such as a new
    /// chunk's ground (or it is a hole) or its re-laid road ribbons: counted
    /// in the budget, which it may close for the meshes that can wait, but
    /// not held back by it.
    pub fn upload_now(&mut self, meshes: &mut Assets<Mesh>, mesh: Mesh) -> Handle<Mesh> {
        self.forced += mesh_bytes(&mesh);
        self.upload(meshes, mesh)
    }

    /// Starts a frame with `per_frame` bytes.
    fn refill(&mut self, per_frame: usize) {
        *self = Self::new(per_frame);
    }
}

/// A mesh's vertex and index bytes (what the renderer uploads).
pub fn mesh_bytes(mesh: &Mesh) -> usize {
    mesh.get_vertex_buffer_size() + mesh.get_index_buffer_bytes().map_or(0, <[u8]>::len)
}

/// Refills the budget for the frame, from the live view settings.
pub(crate) fn refill_upload_budget(state: Res<TerrainState>, mut budget: ResMut<UploadBudget>) {
    budget.refill((state.view.upload_mib_per_frame * MIB) as usize);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plugin::stream::buildings::add_building;
    use crate::plugin::stream::mesh::MeshLists;
    use bevy::math::{DVec2, DVec3};

    fn house() -> Mesh {
        let mut m = MeshLists::default();
        let square = [(0., 0.), (8., 0.), (8., 8.), (0., 8.)].map(|(x, y)| DVec2::new(x, y));
        add_building(&mut m, &square, 6.0, 0.0, |_| 0.0, DVec3::ZERO);
        m.into_mesh()
    }

    #[test]
    fn the_budget_counts_what_goes_and_closes_once_crossed() {
        let mut meshes = Assets::<Mesh>::default();
        let bytes = mesh_bytes(&house());
        // 30 vertices of position, normal and colour (12 + 12 + 4 bytes),
        // 42 indices.
        assert_eq!(bytes, 30 * 28 + 42 * 4);
        let mut budget = UploadBudget::new(2 * bytes + 1);
        let mut handed = 0;
        while budget.open() {
            let h = budget.upload(&mut meshes, house());
            assert!(meshes.get(&h).is_some());
            handed += 1;
        }
        // Two fit; the third crosses the budget and goes too.
        assert_eq!((handed, budget.spent()), (3, 3 * bytes));
        budget.refill(1);
        assert!(budget.open(), "a new frame hands over one mesh at least");
        budget.upload(&mut meshes, house());
        assert!(!budget.open());
        // A mesh that cannot wait is counted apart, and closes the budget.
        budget.refill(2 * bytes);
        budget.upload_now(&mut meshes, house());
        budget.upload_now(&mut meshes, house());
        assert_eq!((budget.spent(), budget.forced()), (2 * bytes, 2 * bytes));
        assert!(!budget.open());
    }
}
