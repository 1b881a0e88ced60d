//! Optional tools, each its own plugin next to
//! [`ReliefPlugin`](super::ReliefPlugin) (they need egui or the UI):
//!
//! - `inspector`: every setting live, saving and loading worlds;
//! - `city_editor`: the inspector's city section and field overlay;
//! - `map_overlay`: the M-key map;
//! - `planner_tool`: plan a road between two marked points;
//! - `editor`: egui widgets; `smoke`: helpers for smoke runs.

pub(crate) mod city_editor;
pub(crate) mod editor;
pub(crate) mod inspector;
pub(crate) mod map_overlay;
pub(crate) mod planner_tool;
pub(crate) mod smoke;
