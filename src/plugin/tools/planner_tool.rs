//! The road-planner tool: mark a start and an end on the ground at the
//! crosshair (keys 1 and 2; 3 clears), and a road is planned between them
//! with Löbker's sequential or A* planner on a worker and drawn at once. Its
//! window shows the planner, connexity, weights, the gameplay sliders,
//! smoothing, and the last road's cost breakdown and time; every change
//! plans the road again.
//!
//! Add [`ReliefPlannerToolPlugin`] next to the inspector (it needs egui).

use crate::plugin::ReliefAssets;
use crate::plugin::stream::coords::WorldAnchor;
use crate::plugin::stream::mesh::colored_mesh;
use crate::plugin::stream::settings::TerrainState;
use crate::plugin::stream::tasks::{Job, ReliefWorkers};
use crate::plugin::{ReliefFocus, TerrainQuery};
use crate::roads::planner::{
    AStarPlanner, Connexity, CostBreakdown, GameplayParams, PlanError, PlannedRoad, PlannerParams,
    RoadPlanner, SequentialPlanner,
};
use crate::terrain::Terrain;
use bevy::math::{DVec2, DVec3};
use bevy::prelude::*;
use bevy_egui::{EguiContext, EguiPrimaryContextPass, PrimaryEguiContext, egui};
use std::sync::Arc;
use std::time::Instant;

/// Adds the planner tool and its window.
pub struct ReliefPlannerToolPlugin;

impl Plugin for ReliefPlannerToolPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<PlannerTool>()
            .add_systems(
                Update,
                (mark_ends, plan, show_road)
                    .chain()
                    .in_set(crate::plugin::ReliefSystems::Planner),
            )
            .add_systems(
                EguiPrimaryContextPass,
                planner_ui.in_set(crate::plugin::ReliefSystems::Planner),
            );
    }
}

/// Which planner the tool uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Reflect)]
pub enum PlannerChoice {
    /// Sun et al. as Löbker varies it: fast, greedy.
    Sequential,
    /// A* over (cell, incoming direction) states.
    AStar,
}

/// The tool's state: what to plan with, the ends, and the last road.
#[derive(Resource)]
pub struct PlannerTool {
    /// The planner.
    pub planner: PlannerChoice,
    /// Its parameters (weights before the gameplay sliders).
    pub params: PlannerParams,
    /// The gameplay sliders, applied to `params.weights`.
    pub gameplay: GameplayParams,
    /// The marked ends.
    pub start: Option<DVec2>,
    /// The marked end.
    pub end: Option<DVec2>,
    /// The last road, or why there is none.
    pub last: Option<Result<PlanSummary, String>>,
    job: Option<Job<(Result<PlannedRoad, PlanError>, f64)>>,
    /// What the current road was planned from.
    planned: Option<(PlannerChoice, PlannerParams, GameplayParams, DVec2, DVec2)>,
    road: Option<(Entity, Vec<DVec2>)>,
    fresh: Option<Vec<DVec2>>,
}

/// The last road in figures.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanSummary {
    /// Length, metres.
    pub length: f64,
    /// The shared cost and its parts.
    pub cost: f64,
    /// The parts.
    pub breakdown: CostBreakdown,
    /// Planning time on the worker, milliseconds.
    pub ms: f64,
    /// States expanded (A*) or candidates scored (sequential).
    pub work: usize,
}

impl Default for PlannerTool {
    fn default() -> Self {
        Self {
            planner: PlannerChoice::AStar,
            params: PlannerParams::default(),
            gameplay: GameplayParams::default(),
            start: None,
            end: None,
            last: None,
            job: None,
            planned: None,
            road: None,
            fresh: None,
        }
    }
}

/// The ground point at the centre of the view: a march along the camera's
/// forward ray, then a bisection to the surface; `None` if it meets no
/// ground within 8 km.
fn crosshair(ground: &TerrainQuery, tf: &Transform) -> Option<DVec2> {
    let eye = ground.to_world(tf.translation);
    let dir = ground.to_world(tf.translation + *tf.forward()) - eye;
    let dir = dir.normalize_or_zero();
    let above = |d: f64| {
        let p = eye + dir * d;
        p.z - ground.height(p.x, p.y)
    };
    let (mut a, mut b) = (0.0, 0.0);
    let mut d = 0.0;
    while d < 8000.0 {
        let next = d + 2.0 + d * 0.01;
        if above(next) < 0.0 {
            (a, b) = (d, next);
            break;
        }
        d = next;
    }
    if b == 0.0 {
        return None;
    }
    for _ in 0..30 {
        let m = (a + b) / 2.0;
        if above(m) < 0.0 { b = m } else { a = m }
    }
    Some((eye + dir * a).truncate())
}

fn mark_ends(
    keys: Res<ButtonInput<KeyCode>>,
    ground: TerrainQuery,
    camera: Query<&Transform, With<ReliefFocus>>,
    mut tool: ResMut<PlannerTool>,
) {
    let Ok(tf) = camera.single() else { return };
    if keys.just_pressed(KeyCode::Digit1) {
        tool.start = crosshair(&ground, tf);
    }
    if keys.just_pressed(KeyCode::Digit2) {
        tool.end = crosshair(&ground, tf);
    }
    if keys.just_pressed(KeyCode::Digit3) {
        (tool.start, tool.end, tool.last) = (None, None, None);
    }
}

/// Starts a plan when the ends or the settings changed; takes finished ones.
fn plan(state: Res<TerrainState>, workers: Res<ReliefWorkers>, mut tool: ResMut<PlannerTool>) {
    if let Some(job) = tool.job.as_mut()
        && let Some((result, ms)) = job.take()
    {
        tool.job = None;
        tool.last = Some(match result {
            Ok(road) => {
                let summary = PlanSummary {
                    length: road.length(),
                    cost: road.cost,
                    breakdown: road.breakdown,
                    ms,
                    work: road.work,
                };
                tool.fresh = Some(if road.smoothed.len() >= 2 {
                    road.smoothed
                } else {
                    road.points
                });
                Ok(summary)
            }
            Err(e) => {
                tool.fresh = Some(Vec::new());
                Err(e.to_string())
            }
        });
    }
    let (Some(from), Some(to)) = (tool.start, tool.end) else {
        if tool.road.is_some() {
            tool.fresh = Some(Vec::new());
        }
        tool.planned = None;
        return;
    };
    // Compared in place: this runs every frame, the copies only on a change.
    let same = tool.planned.as_ref().is_some_and(|(c, p, g, f, t)| {
        (*c, *f, *t) == (tool.planner, from, to) && *p == tool.params && *g == tool.gameplay
    });
    if tool.job.is_some() || same {
        return;
    }
    let wanted = (
        tool.planner,
        tool.params.clone(),
        tool.gameplay.clone(),
        from,
        to,
    );
    let mut params = tool.params.clone();
    params.weights = tool.gameplay.weights(&params.weights);
    let (choice, terrain): (_, Arc<Terrain>) = (tool.planner, state.terrain.clone());
    tool.planned = Some(wanted);
    tool.job = Some(workers.spawn(move || {
        let t0 = Instant::now();
        let r = match choice {
            PlannerChoice::Sequential => SequentialPlanner.plan(&terrain, from, to, &params),
            PlannerChoice::AStar => AStarPlanner.plan(&terrain, from, to, &params),
        };
        (r, t0.elapsed().as_secs_f64() * 1e3)
    }));
}

/// Half the planned road's drawn width, metres.
const HALF_WIDTH: f64 = 2.5;

/// Longest stretch of the planned road's ribbon between two height
/// samples, metres (the road's own points are a step, 40 m, apart).
const SAMPLE: f64 = 4.0;

/// The planned road's ribbon: `HALF_WIDTH` either side of `points`,
/// sampled every `SAMPLE` metres at most, 1 m above `ground`, relative to
/// the first point, its triangles facing up.
fn ribbon(
    points: &[DVec2],
    ground: impl Fn(DVec2) -> f64,
) -> (Vec<[f32; 3]>, Vec<[f32; 3]>, Vec<[f32; 4]>, Vec<u32>) {
    let base = points[0];
    let mut samples = Vec::new();
    for w in points.windows(2) {
        let n = (w[0].distance(w[1]) / SAMPLE).ceil().clamp(1.0, 1e5) as usize;
        samples.extend((0..n).map(|k| w[0].lerp(w[1], k as f64 / n as f64)));
    }
    samples.extend(points.last());
    let points = &samples;
    let (mut pos, mut nor, mut col, mut idx) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (k, p) in points.iter().enumerate() {
        let (a, b) = (
            points[k.saturating_sub(1)],
            points[(k + 1).min(points.len() - 1)],
        );
        let dir = (b - a).normalize_or(DVec2::X);
        let side = DVec2::new(dir.y, -dir.x) * HALF_WIDTH;
        // Left, then right.
        for q in [*p - side, *p + side] {
            let z = ground(q) + 1.0;
            let v = crate::plugin::stream::coords::to_bevy(
                DVec3::new(q.x - base.x, q.y - base.y, z),
                DVec2::ZERO,
            );
            pos.push(v.to_array());
            nor.push([0.0, 1.0, 0.0]);
            col.push([1.0, 0.35, 0.1, 1.0]);
        }
        if k > 0 {
            // Counter-clockwise seen from above: left, right, then ahead.
            let i = (2 * k) as u32;
            idx.extend_from_slice(&[i - 2, i - 1, i + 1, i - 2, i + 1, i]);
        }
    }
    (pos, nor, col, idx)
}

/// Draws the last road as a bright ribbon 1 m above the ground.
fn show_road(
    mut commands: Commands,
    ground: TerrainQuery,
    assets: Option<Res<ReliefAssets>>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut tool: ResMut<PlannerTool>,
) {
    let Some(points) = tool.fresh.take() else {
        return;
    };
    if let Some((e, _)) = tool.road.take() {
        commands.entity(e).despawn();
    }
    if points.len() < 2 {
        return;
    }
    let base = points[0];
    let lake = ground.terrain().params().lake_level;
    let (pos, nor, col, idx) = ribbon(&points, |q| ground.height(q.x, q.y).max(lake));
    let anchor = WorldAnchor(DVec3::new(base.x, base.y, 0.0));
    let mut e = commands.spawn((
        Name::new("planned road"),
        anchor,
        Transform::from_translation(ground.to_render(anchor.0)),
        Visibility::Inherited,
        Mesh3d(meshes.add(colored_mesh(pos, nor, col, idx))),
    ));
    // The roads' material: drawn a little in front of the ground, so the
    // ribbon shows where a coarse chunk's triangles rise above the samples.
    if let Some(m) = assets.and_then(|a| a.road.clone()) {
        e.insert(MeshMaterial3d(m));
    }
    tool.road = Some((e.id(), points));
}

fn planner_ui(
    mut contexts: Query<&mut EguiContext, With<PrimaryEguiContext>>,
    mut tool: ResMut<PlannerTool>,
) {
    let Ok(mut ctx) = contexts.single_mut() else {
        return;
    };
    let (mut planner, mut params, mut gameplay) =
        (tool.planner, tool.params.clone(), tool.gameplay.clone());
    let (last, busy, start, end) = (tool.last.clone(), tool.job.is_some(), tool.start, tool.end);
    // The crosshair the ends are marked at.
    let ctx_ref = ctx.get_mut();
    let c = ctx_ref.content_rect().center();
    let painter = ctx_ref.layer_painter(egui::LayerId::background());
    let stroke = egui::Stroke::new(
        2.0,
        egui::Color32::from_rgba_unmultiplied(255, 255, 255, 200),
    );
    for (a, b) in [
        ((-9.0, 0.0), (-3.0, 0.0)),
        ((3.0, 0.0), (9.0, 0.0)),
        ((0.0, -9.0), (0.0, -3.0)),
        ((0.0, 3.0), (0.0, 9.0)),
    ] {
        painter.line_segment([c + egui::vec2(a.0, a.1), c + egui::vec2(b.0, b.1)], stroke);
    }
    egui::Window::new("Road planner")
        .default_pos([980.0, 8.0])
        .default_open(false)
        .default_width(290.0)
        .show(ctx.get_mut(), |ui| {
            ui.label("1: start at the crosshair, 2: end, 3: clear");
            let at = |p: Option<DVec2>| p.map_or("—".to_string(), |p| format!("({:.0}, {:.0})", p.x, p.y));
            ui.monospace(format!("{} → {}", at(start), at(end)));
            ui.horizontal(|ui| {
                ui.radio_value(&mut planner, PlannerChoice::AStar, "A*");
                ui.radio_value(&mut planner, PlannerChoice::Sequential, "sequential");
            });
            let p = &mut params;
            egui::ComboBox::from_label("connexity")
                .selected_text(format!("{:?}", p.connexity))
                .show_ui(ui, |ui| {
                    for c in [Connexity::Four, Connexity::Eight, Connexity::Sixteen, Connexity::ThirtyTwo] {
                        ui.selectable_value(&mut p.connexity, c, format!("{c:?}"));
                    }
                });
            let w = &mut p.weights;
            for (name, v, max) in [
                ("distance", &mut w.distance, 10.0),
                ("slope", &mut w.slope, 10.0),
                ("smoothness", &mut w.smoothness, 10.0),
                ("dither", &mut w.dither, 10.0),
                ("uncertainty", &mut w.uncertainty, 10.0),
            ] {
                ui.add(egui::Slider::new(v, 0.0..=max).text(name));
            }
            ui.add(egui::Slider::new(&mut p.distance_factor, 1.0..=3.0).text("distance factor"));
            ui.add(egui::Slider::new(&mut p.step, 10.0..=200.0).text("step (m)"));
            ui.checkbox(&mut p.bridges, "bridges");
            ui.horizontal(|ui| {
                ui.checkbox(&mut p.smoothing, "smoothing");
                ui.add(egui::Slider::new(&mut p.tension, 0.0..=1.0).text("tension"));
            });
            ui.separator();
            ui.label("gameplay");
            for g in &mut gameplay.params {
                ui.add(egui::Slider::new(&mut g.value, 0.0..=1.0).text(g.name.clone()));
            }
            ui.separator();
            match &last {
                None if busy => {
                    ui.label("planning…");
                }
                None => {
                    ui.label("no road yet");
                }
                Some(Err(e)) => {
                    ui.colored_label(egui::Color32::LIGHT_RED, e);
                }
                Some(Ok(s)) => {
                    let b = &s.breakdown;
                    ui.monospace(format!(
                        "{:.0} m in {:.1} ms ({} work)\ncost {:.1}: distance {:.1}, slope {:.1},\nsmoothness {:.1}, dither {:.1}, bridges {:.1}",
                        s.length, s.ms, s.work, s.cost, b.distance, b.slope, b.smoothness, b.dither, b.bridge
                    ));
                }
            }
        });
    // Only real edits count as a change (so the road is not planned anew
    // every frame).
    if planner != tool.planner || params != tool.params || gameplay != tool.gameplay {
        tool.planner = planner;
        tool.params = params;
        tool.gameplay = gameplay;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_road_ribbon_faces_up_and_follows_the_road() {
        // North, east, south-east: turns as sharp as the planners' (90°).
        let points = [(0.0, 0.0), (0.0, 40.0), (40.0, 40.0), (80.0, 0.0)]
            .map(|(x, y)| DVec2::new(100.0 + x, 200.0 + y));
        let (pos, _, _, idx) = ribbon(&points, |q| q.x * 0.01);
        assert_eq!(
            pos.len(),
            2 * (10 + 10 + 15 + 1),
            "sampled every 4 m at most"
        );
        for tri in idx.chunks(3) {
            let [a, b, c] = [tri[0], tri[1], tri[2]].map(|i| Vec3::from(pos[i as usize]));
            assert!((b - a).cross(c - a).y > 0.0, "a triangle faces down");
        }
        // Each pair stands either side of a point on the road, 2.5 m off
        // it, 1 m above the ground.
        let on_road = |q: DVec2| {
            points
                .windows(2)
                .map(|w| crate::geom::segment_distance(q, q, w[0], w[1]))
                .fold(f64::INFINITY, f64::min)
        };
        for pair in pos.chunks(2) {
            let [l, r] = [pair[0], pair[1]].map(|v| {
                let v = Vec3::from(v);
                (DVec2::new(v.x as f64, -v.z as f64) + points[0], v.y as f64)
            });
            assert!(on_road((l.0 + r.0) / 2.0) < 1e-3);
            assert!((l.0.distance(r.0) - 2.0 * HALF_WIDTH).abs() < 1e-3);
            for (w, z) in [l, r] {
                assert!((z - (w.x * 0.01 + 1.0)).abs() < 1e-3);
            }
        }
    }
}
