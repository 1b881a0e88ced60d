//! [`Structure`]s: bridges, tunnels and retaining walls, where the built
//! ground is not a carriageway, a pad or a side slope.

use glam::DVec3;

/// What a structure is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StructureKind {
    /// A road on a deck on piers, where the fill would be too high (or over
    /// water).
    Bridge,
    /// A road through the ground, portal to portal, where the cut would be
    /// too deep; the ground above is untouched.
    Tunnel,
    /// A retaining wall: a step in the built ground.
    Wall,
}

/// A bridge, tunnel or retaining wall.
#[derive(Clone, Debug, PartialEq)]
pub struct Structure {
    /// What it is.
    pub kind: StructureKind,
    /// The road it carries (an index into the region's network), for bridges
    /// and tunnels; none for walls.
    pub road: Option<usize>,
    /// The road surface along a bridge deck or through a tunnel, or a wall's
    /// top, in core coordinates (x east, y north, z up).
    pub line: Vec<DVec3>,
    /// Under each point of `line`: the ground at a wall's foot, the natural
    /// ground (or the lake's water) under a bridge deck, where its piers
    /// stand, or the natural ground above a tunnel.
    pub foot: Vec<f64>,
}
