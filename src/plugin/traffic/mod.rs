//! Traffic on the laid roads: [`ReliefTrafficPlugin`] keeps about
//! [`TrafficSettings::traffic_density`] vehicles per kilometre of road within
//! [`TrafficSettings::traffic_radius`] of the focus, each driving a route
//! between random places there (on the right-hand lane, at its road class's
//! speed, slower on grades and near junctions, along the road profiles over
//! bridges and through tunnels), and about
//! [`TrafficSettings::pedestrian_density`] pedestrians per kilometre of
//! street and footway within [`TrafficSettings::pedestrian_radius`], each
//! walking a route there near the right-hand edge, up and down the steps.
//! Not part of [`ReliefPlugins`](crate::plugin::ReliefPlugins): a game adds
//! it.
//!
//! Each kind's routing graph is built on a worker once per [`LaidRoads`]
//! version; at most [`TrafficSettings::routes_per_frame`] vehicle routes
//! (a quarter as many pedestrian routes) are searched per frame.
//! Everything is deterministic given [`TrafficSettings::seed`] (and the
//! frame times): each route's random places come from a ChaCha stream
//! seeded by the seed, the kind and a counter.

mod drive;
mod fleet;
mod net;

use super::ReliefSystems;
use super::stream::roads::LaidRoads;
use super::stream::tasks::ReliefWorkers;
use crate::network::Route;
use crate::terrain::ParamError;
use bevy::math::DVec3;
use bevy::prelude::*;
use std::sync::Arc;

/// The most vehicles [`TrafficSettings::max_vehicles`] may allow.
pub const MAX_VEHICLES: usize = 2000;
/// The most pedestrians [`TrafficSettings::max_pedestrians`] may allow.
pub const MAX_PEDESTRIANS: usize = 2000;

/// Adds traffic around the focus (see the module docs). Needs
/// [`ReliefPlugin`](crate::plugin::ReliefPlugin) with its roads.
#[derive(Clone, Debug, Default)]
pub struct ReliefTrafficPlugin {
    /// The settings to start with.
    pub settings: TrafficSettings,
}

impl Plugin for ReliefTrafficPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(self.settings.clone())
            .register_type::<TrafficSettings>()
            .init_resource::<TrafficStats>()
            .init_resource::<fleet::Fleet<Vehicle>>()
            .init_resource::<fleet::Fleet<Pedestrian>>()
            .add_systems(
                PostUpdate,
                (fleet::update::<Vehicle>, fleet::update::<Pedestrian>)
                    .in_set(ReliefSystems::Objects)
                    .run_if(resource_exists::<LaidRoads>)
                    .run_if(resource_exists::<ReliefWorkers>),
            );
    }
}

/// The traffic's settings (live: edit the resource).
#[derive(Resource, Clone, Debug, PartialEq, Reflect)]
#[reflect(Resource)]
pub struct TrafficSettings {
    /// Traffic on or off (off: every vehicle and pedestrian goes).
    pub enabled: bool,
    /// Vehicles per kilometre of drivable road within the radius (0–100).
    pub traffic_density: f64,
    /// How far from the focus vehicles drive (m, 50–5000).
    pub traffic_radius: f64,
    /// The seed of every random choice.
    pub seed: u64,
    /// The most vehicles at once (at most [`MAX_VEHICLES`]).
    pub max_vehicles: usize,
    /// The most vehicle routes searched per frame (1–64); pedestrians
    /// search a quarter as many (rounded up).
    pub routes_per_frame: usize,
    /// Pedestrians per kilometre of street and footway within their
    /// radius (0–200).
    pub pedestrian_density: f64,
    /// How far from the focus pedestrians walk (m, 50–2000).
    pub pedestrian_radius: f64,
    /// The most pedestrians at once (at most [`MAX_PEDESTRIANS`]).
    pub max_pedestrians: usize,
}

impl Default for TrafficSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            traffic_density: 2.0,
            traffic_radius: 1000.0,
            seed: 1,
            max_vehicles: 1000,
            routes_per_frame: 8,
            pedestrian_density: 6.0,
            pedestrian_radius: 300.0,
            max_pedestrians: 500,
        }
    }
}

impl TrafficSettings {
    /// Checks every field.
    pub fn validate(&self) -> Result<(), ParamError> {
        let check = |field: &'static str, value: f64, min: f64, max: f64| {
            ParamError::check_range(field, value, min, max).map_err(|e| e.within("traffic"))
        };
        check("traffic_density", self.traffic_density, 0.0, 100.0)?;
        check("traffic_radius", self.traffic_radius, 50.0, 5000.0)?;
        let max = MAX_VEHICLES as f64;
        check("max_vehicles", self.max_vehicles as f64, 0.0, max)?;
        check("routes_per_frame", self.routes_per_frame as f64, 1.0, 64.0)?;
        check("pedestrian_density", self.pedestrian_density, 0.0, 200.0)?;
        check("pedestrian_radius", self.pedestrian_radius, 50.0, 2000.0)?;
        let max = MAX_PEDESTRIANS as f64;
        check("max_pedestrians", self.max_pedestrians as f64, 0.0, max)
    }
}

/// A trip along a route, a vehicle's or a pedestrian's.
#[derive(Clone, Debug)]
pub struct Trip {
    /// Its route (points on the road centre lines' profiles).
    pub route: Arc<Route>,
    /// How far along the route it is (m, 3D).
    pub progress: f64,
    /// Its speed now (m/s; 0 while it waits for a new route).
    pub speed: f64,
    /// Where it is: core coordinates on its lane or walk, on the road
    /// surface.
    pub position: DVec3,
    /// Which way it heads (a unit core vector, with the grade).
    pub heading: DVec3,
    /// Its number: those of its kind are counted in the order they were
    /// made.
    pub id: u64,
}

/// A vehicle driving a route (the game can query it; its fields are its
/// [`Trip`]'s): a quarter of its road's width right of the centre line, at
/// its road class's speed slowed on grades
/// ([`grade_factor`](crate::network::grade_factor)) and to 60 % within 15 m
/// of where its route changes road.
#[derive(Component, Clone, Debug, Deref, DerefMut)]
pub struct Vehicle(pub Trip);

/// A pedestrian walking a route on streets and footways (steps among
/// them): 0.75 m in from its road's right-hand edge, at walking pace (1.4
/// m/s) slowed on grades. Its fields are its [`Trip`]'s.
#[derive(Component, Clone, Debug, Deref, DerefMut)]
pub struct Pedestrian(pub Trip);

/// How the traffic is doing.
#[derive(Resource, Clone, Debug, Default, PartialEq, Reflect)]
#[reflect(Resource)]
pub struct TrafficStats {
    /// Vehicles alive.
    pub vehicles: usize,
    /// How many vehicles the density asks for within the radius.
    pub target: usize,
    /// Drivable road within the radius (km).
    pub road_km: f64,
    /// The vehicles' routing graph of the current roads is built.
    pub ready: bool,
    /// Pedestrians alive.
    pub pedestrians: usize,
    /// How many pedestrians the density asks for within their radius.
    pub pedestrian_target: usize,
    /// Streets and footways within the pedestrians' radius (km).
    pub walk_km: f64,
    /// The pedestrians' routing graph of the current roads is built.
    pub walk_ready: bool,
    /// Routes searched since start (both kinds).
    pub routes: u64,
    /// Searches that found no route since start (both kinds).
    pub failed: u64,
    /// The last settings rejected (the last good ones stay in force).
    pub error: Option<String>,
}
