//! The in-game map: M toggles an orienteering map (the same renderer as the
//! `map` example) centred on the focus, with its position and heading,
//! the roads around and the streams. It is drawn on a worker thread and
//! redrawn as the player moves or turns.

use crate::map::{MapImage, MapLayers, MapMarker, MapStyle, render_map};
use crate::plugin::stream::coords::{FocusState, ReliefFocus};
use crate::plugin::stream::settings::TerrainState;
use crate::plugin::stream::tasks::{Job, ReliefWorkers};
use crate::terrain::Stream;
use bevy::asset::RenderAssetUsages;
use bevy::math::DVec2;
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};
use std::sync::Arc;

/// Side of the map overlay, pixels (and metres, at 1 m per pixel).
const SIDE: usize = 480;

/// Adds the M-key map overlay (needs the UI and render plugins).
pub struct ReliefMapPlugin;

impl Plugin for ReliefMapPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<MapOverlay>().add_systems(
            Update,
            (toggle_map, update_map)
                .chain()
                .in_set(crate::plugin::ReliefSystems::Map),
        );
    }
}

/// Streams found around a square (min, max), reused while the map stays inside it.
type StreamCache = (DVec2, DVec2, Arc<Vec<Stream>>);

/// The overlay's state.
#[derive(Resource, Default)]
pub struct MapOverlay {
    /// Shown or hidden.
    pub open: bool,
    node: Option<Entity>,
    image: Option<Handle<Image>>,
    task: Option<Job<(MapImage, StreamCache)>>,
    streams: Option<StreamCache>,
    /// Where and which way the last map was drawn for.
    drawn: Option<(DVec2, f64, u64)>,
}

impl MapOverlay {
    /// Whether the map is open and shown for where the focus is now (not
    /// waiting for a redraw).
    pub fn shown(&self) -> bool {
        self.open && self.node.is_some() && self.task.is_none()
    }
}

fn toggle_map(
    keys: Res<ButtonInput<KeyCode>>,
    mut overlay: ResMut<MapOverlay>,
    mut commands: Commands,
) {
    if !keys.just_pressed(KeyCode::KeyM) {
        return;
    }
    overlay.open = !overlay.open;
    if !overlay.open {
        if let Some(e) = overlay.node.take() {
            commands.entity(e).despawn();
        }
        overlay.drawn = None;
    }
}

fn update_map(
    mut commands: Commands,
    mut overlay: ResMut<MapOverlay>,
    mut images: ResMut<Assets<Image>>,
    focus: Res<FocusState>,
    state: Res<TerrainState>,
    laid: Res<crate::plugin::LaidRoads>,
    workers: Res<ReliefWorkers>,
    camera: Query<&Transform, With<ReliefFocus>>,
) {
    if !overlay.open {
        return;
    }
    if let Some(task) = overlay.task.as_mut()
        && let Some((map, streams)) = task.take()
    {
        overlay.task = None;
        overlay.streams = Some(streams);
        let image = Image::new(
            Extent3d {
                width: map.width as u32,
                height: map.height as u32,
                depth_or_array_layers: 1,
            },
            TextureDimension::D2,
            map.rgba,
            TextureFormat::Rgba8UnormSrgb,
            RenderAssetUsages::default(),
        );
        let handle = images.add(image);
        if let Some(old) = overlay.image.replace(handle.clone()) {
            images.remove(&old);
        }
        match overlay.node {
            Some(e) => {
                commands.entity(e).insert(ImageNode::new(handle));
            }
            None => {
                let e = commands
                    .spawn((
                        Name::new("map overlay"),
                        ImageNode::new(handle),
                        Node {
                            position_type: PositionType::Absolute,
                            right: Val::Px(12.0),
                            bottom: Val::Px(12.0),
                            width: Val::Px(SIDE as f32),
                            height: Val::Px(SIDE as f32),
                            border: UiRect::all(Val::Px(2.0)),
                            ..default()
                        },
                        BorderColor::all(Color::BLACK),
                    ))
                    .id();
                overlay.node = Some(e);
            }
        }
    }
    let (Some(f), Some(tf)) = (focus.world, camera.iter().next()) else {
        return;
    };
    let fwd = tf.forward();
    let heading = (fwd.x as f64).atan2(-fwd.z as f64);
    let here = (
        f.truncate(),
        heading,
        laid.version ^ (state.generation << 32),
    );
    let stale = overlay.drawn.is_none_or(|(p, h, v)| {
        p.distance(here.0) > 4.0 || (h - here.1).abs() > 0.05 || v != here.2
    });
    if !stale || overlay.task.is_some() {
        return;
    }
    overlay.drawn = Some(here);
    let terrain = Arc::clone(&state.terrain);
    let roads = laid.roads.clone();
    let cities = Arc::clone(&laid.cities);
    let layouts = Arc::clone(&laid.layouts);
    let marker = MapMarker {
        pos: here.0,
        heading,
    };
    let half = DVec2::splat(SIDE as f64 / 2.0);
    let (lo, hi) = (marker.pos - half, marker.pos + half);
    let cached = overlay
        .streams
        .clone()
        .filter(|(min, max, _)| lo.x >= min.x && lo.y >= min.y && hi.x <= max.x && hi.y <= max.y);
    overlay.task = Some(workers.spawn(move || {
        // Streams for a square a little larger than the map, reused for a while.
        let streams = cached.unwrap_or_else(|| {
            let (min, max) = (lo - 200.0, hi + 200.0);
            (
                min,
                max,
                Arc::new(terrain.streams_in(min, max).unwrap_or_default()),
            )
        });
        let net = Some(roads.network().clone());
        let buildings: Vec<Vec<DVec2>> = (layouts.iter())
            .filter(|l| {
                let (a, b) = l.city.bounds();
                a.cmple(hi).all() && b.cmpge(lo).all()
            })
            .flat_map(|l| l.buildings().map(|b| b.footprint.clone()))
            .collect();
        let layers = MapLayers {
            roads: net.as_deref(),
            streams: &streams.2,
            marker: Some(marker),
            cities: cities.cities(),
            buildings: &buildings,
        };
        let map = render_map(
            &terrain,
            marker.pos,
            SIDE,
            SIDE,
            &MapStyle::default(),
            layers,
        )
        .unwrap_or_else(|_| MapImage {
            width: 1,
            height: 1,
            rgba: vec![0, 0, 0, 0],
        });
        (map, streams)
    }));
}
