//! The road network: the planar graph of roads every generator produces, the
//! world composes and the renderer draws ([`RoadNetwork`], [`Road`],
//! [`RoadClass`], [`Junction`]), [`planarize`] to combine networks, its
//! planarity check, GeoJSON, conversion to and from the street generators'
//! [`PlanarGraph`](crate::geom::PlanarGraph), [`RoadLayer`], a network
//! laid on the ground, and routes along it ([`RoadNetwork::route`],
//! [`Router`]: shortest by length or travel time).
//!
//! This layer sits on `geom` and `terrain` and below `roads` and `city`,
//! which both take their network from here.

mod graph;
mod layer;
mod planar;
mod planarize;
mod route;

pub(crate) use graph::point_key;
pub use graph::{Junction, PlanarityError, PlanarityFault, Road, RoadClass, RoadNetwork};
pub use layer::RoadLayer;
pub use planarize::planarize;
pub use route::{
    LEVEL_GAP, MAX_SNAP, Route, RouteCost, RouteEnd, RouteError, RouteGraph, RouteParams, Router,
    grade_factor,
};
