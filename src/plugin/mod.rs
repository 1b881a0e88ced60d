//! The Bevy side: [`ReliefPlugin`] and what it adds to an `App`.

use bevy::prelude::*;

/// Adds the Relf world to a Bevy app.
#[derive(Default)]
pub struct ReliefPlugin;

impl Plugin for ReliefPlugin {
    fn build(&self, _app: &mut App) {}
}
