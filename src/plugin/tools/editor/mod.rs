//! egui widgets for editing terrain parameters (the height-vectors editor).
//!
//! [`vector_editor`] is Graham Relf's "Redesign → Height vectors" graph: each
//! direction vector is an arrow from the centre whose end can be dragged, with
//! the numbers listed below. The same widget edits the town, vegetation and
//! undergrowth vector sets. [`profile_plot`] shows a 1-D profile read-only.
//!
//! The plot maths (unit ↔ screen mapping, snapping, handle hit-testing and the
//! drag update) lives in small pure functions so it is testable without a UI.

use bevy::math::DVec2;
use bevy_egui::egui::{
    self, Align2, Color32, CursorIcon, FontId, Pos2, Rect, RichText, Sense, Shape, Stroke,
    StrokeKind, Vec2,
};

/// Largest side of the square vector plot, in points.
const PLOT_MAX_SIDE: f32 = 320.0;
/// Smallest side of the square vector plot, in points.
const PLOT_MIN_SIDE: f32 = 160.0;
/// Free space between the ±extent square and the plot border, in points.
const PLOT_MARGIN: f32 = 14.0;
/// Grid spacing, in vector units.
const GRID_STEP: f64 = 10.0;
/// Radius of a handle as drawn, in points.
const HANDLE_RADIUS: f32 = 5.0;
/// How close (in points) the pointer must be to a handle to grab it.
const HIT_RADIUS: f32 = 10.0;
/// Height of [`profile_plot`], in points.
const PROFILE_HEIGHT: f32 = 80.0;

/// One colour per vector (cycled when there are more vectors).
const PALETTE: [Color32; 8] = [
    Color32::from_rgb(230, 85, 75),
    Color32::from_rgb(90, 180, 75),
    Color32::from_rgb(75, 135, 235),
    Color32::from_rgb(235, 165, 40),
    Color32::from_rgb(175, 95, 215),
    Color32::from_rgb(40, 190, 190),
    Color32::from_rgb(225, 105, 170),
    Color32::from_rgb(160, 160, 70),
];

/// Maps vector units (y up) to screen points (y down) around a centre.
#[derive(Clone, Copy, Debug, PartialEq)]
struct PlotMap {
    /// Screen position of the unit origin.
    center: Pos2,
    /// Points per unit.
    scale: f32,
}

impl PlotMap {
    /// The mapping that fits ±`extent` units into `rect` (less a margin).
    fn fit(rect: Rect, extent: f64) -> Self {
        let half = (rect.width().min(rect.height()) * 0.5 - PLOT_MARGIN).max(1.0);
        let extent = if extent.is_finite() && extent > 0.0 {
            extent
        } else {
            1.0
        };
        Self {
            center: rect.center(),
            scale: half / extent as f32,
        }
    }

    fn to_screen(self, v: DVec2) -> Pos2 {
        Pos2::new(
            self.center.x + v.x as f32 * self.scale,
            self.center.y - v.y as f32 * self.scale,
        )
    }

    fn to_units(self, p: Pos2) -> DVec2 {
        DVec2::new(
            f64::from((p.x - self.center.x) / self.scale),
            f64::from((self.center.y - p.y) / self.scale),
        )
    }

    /// A screen displacement in units (y flipped).
    fn delta_to_units(self, d: Vec2) -> DVec2 {
        DVec2::new(f64::from(d.x / self.scale), f64::from(-d.y / self.scale))
    }
}

/// Rounds to whole units, or to 0.1 units when `fine`.
fn snap(v: DVec2, fine: bool) -> DVec2 {
    let per_unit = if fine { 10.0 } else { 1.0 };
    (v * per_unit).round() / per_unit
}

/// The index of the handle nearest to `pos` within `radius`; on a tie the
/// later one wins, as it is drawn on top.
fn nearest_handle(handles: &[Pos2], pos: Pos2, radius: f32) -> Option<usize> {
    let mut best: Option<(usize, f32)> = None;
    for (i, h) in handles.iter().enumerate() {
        let d = h.distance(pos);
        if d <= radius && best.is_none_or(|(_, bd)| d <= bd) {
            best = Some((i, d));
        }
    }
    best.map(|(i, _)| i)
}

/// Where a vector that was at `start` when the drag began goes after the
/// pointer has moved `total_delta` points: clamped to ±`extent`, then snapped.
fn drag_target(start: DVec2, total_delta: Vec2, map: PlotMap, fine: bool, extent: f64) -> DVec2 {
    let raw = start + map.delta_to_units(total_delta);
    let extent = extent.abs();
    snap(raw.clamp(DVec2::splat(-extent), DVec2::splat(extent)), fine)
}

/// Minimum and maximum of the finite values, if any.
fn profile_range(profile: &[f64]) -> Option<(f64, f64)> {
    profile
        .iter()
        .copied()
        .filter(|v| v.is_finite())
        .fold(None, |acc, v| match acc {
            None => Some((v, v)),
            Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
        })
}

/// Screen points of the profile in `rect` (index across, value up); runs of
/// finite values become separate polylines.
fn profile_polylines(profile: &[f64], rect: Rect, lo: f64, hi: f64) -> Vec<Vec<Pos2>> {
    let n = profile.len();
    let span = hi - lo;
    let mut lines = Vec::new();
    let mut line = Vec::new();
    for (i, &v) in profile.iter().enumerate() {
        if !v.is_finite() {
            if !line.is_empty() {
                lines.push(std::mem::take(&mut line));
            }
            continue;
        }
        let t = if n > 1 {
            i as f32 / (n - 1) as f32
        } else {
            0.5
        };
        let u = if span > 0.0 {
            ((v - lo) / span) as f32
        } else {
            0.5
        };
        line.push(Pos2::new(
            rect.left() + t * rect.width(),
            rect.bottom() - u * rect.height(),
        ));
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// The drag in progress: which vector, its value and the pointer at the start.
#[derive(Clone, Copy, Debug)]
struct DragState {
    index: usize,
    start: DVec2,
    origin: Pos2,
}

/// Colour of vector `i`.
fn vector_color(i: usize) -> Color32 {
    PALETTE[i % PALETTE.len()]
}

/// An arrow from `from` to `to` with a head of fixed size.
fn paint_arrow(painter: &egui::Painter, from: Pos2, to: Pos2, stroke: Stroke) {
    let vec = to - from;
    let len = vec.length();
    painter.line_segment([from, to], stroke);
    if len < 1.0 {
        return;
    }
    let dir = vec / len;
    let head = (len / 3.0).min(10.0);
    let back = to - dir * head;
    let side = dir.rot90() * head * 0.45;
    painter.line_segment([to, back + side], stroke);
    painter.line_segment([to, back - side], stroke);
}

/// Formats a number without a trailing ".0" for whole values.
fn fmt_num(v: f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        format!("{}", v.round())
    } else {
        format!("{v:.1}")
    }
}

/// Draws an editable plot of direction vectors: each vector an arrow from the
/// centre with a draggable end handle, grid lines every 10 units and the scale
/// fitted to ±`extent` units (e.g. 40 for heights, 80 for the other sets).
/// Below it, one row per vector with its components and length, and "+" / "−"
/// buttons keeping the count within `min_len..=max_len`. Dragging snaps to
/// whole numbers, or to 0.1 with Shift held. Returns true when anything changed.
pub fn vector_editor(
    ui: &mut egui::Ui,
    id: &str,
    vectors: &mut Vec<DVec2>,
    extent: f64,
    min_len: usize,
    max_len: usize,
) -> bool {
    ui.push_id(id, |ui| {
        let mut changed = plot(ui, vectors, extent);
        changed |= rows(ui, vectors, min_len, max_len);
        changed
    })
    .inner
}

/// The square graph with draggable handles.
fn plot(ui: &mut egui::Ui, vectors: &mut [DVec2], extent: f64) -> bool {
    let side = ui.available_width().clamp(PLOT_MIN_SIDE, PLOT_MAX_SIDE);
    let (response, painter) = ui.allocate_painter(Vec2::splat(side), Sense::drag());
    let rect = response.rect;
    let map = PlotMap::fit(rect, extent);
    let visuals = ui.visuals().clone();
    let drag_id = response.id.with("drag");
    let mut changed = false;

    // Drag handling: grab the handle under the press, then follow the pointer.
    let mut dragging = None;
    if response.dragged() {
        let state = ui
            .data_mut(|d| d.get_temp::<DragState>(drag_id))
            .or_else(|| {
                let origin = ui.input(|i| i.pointer.press_origin())?;
                let handles: Vec<Pos2> = vectors.iter().map(|&v| map.to_screen(v)).collect();
                let index = nearest_handle(&handles, origin, HIT_RADIUS)?;
                let state = DragState {
                    index,
                    start: vectors[index],
                    origin,
                };
                ui.data_mut(|d| d.insert_temp(drag_id, state));
                Some(state)
            });
        if let Some(state) = state.filter(|s| s.index < vectors.len()) {
            let (latest, fine) = ui.input(|i| (i.pointer.latest_pos(), i.modifiers.shift));
            if let Some(latest) = latest {
                let target = drag_target(state.start, latest - state.origin, map, fine, extent);
                if target != vectors[state.index] {
                    vectors[state.index] = target;
                    changed = true;
                }
            }
            dragging = Some(state.index);
        }
    } else {
        ui.data_mut(|d| d.remove::<DragState>(drag_id));
    }

    let handles: Vec<Pos2> = vectors.iter().map(|&v| map.to_screen(v)).collect();
    let highlighted = dragging.or_else(|| {
        response
            .hover_pos()
            .and_then(|p| nearest_handle(&handles, p, HIT_RADIUS))
    });
    if dragging.is_some() {
        ui.set_cursor_icon(CursorIcon::Grabbing);
    } else if highlighted.is_some() {
        ui.set_cursor_icon(CursorIcon::Grab);
    }

    // Background, grid and axes.
    painter.rect_filled(rect, 2.0, visuals.extreme_bg_color);
    let grid = Stroke::new(1.0, visuals.widgets.noninteractive.bg_stroke.color);
    let axis = Stroke::new(1.5, visuals.widgets.noninteractive.fg_stroke.color);
    let half_px = rect.width().max(rect.height());
    let reach = f64::from(half_px / map.scale);
    let lines = (reach / GRID_STEP).ceil() as i64;
    let small = FontId::proportional(10.0);
    let text_color = visuals.weak_text_color();
    // Label every grid line if there is room, otherwise every other, etc.
    let label_every = ((28.0 / (GRID_STEP as f32 * map.scale)).ceil() as i64).max(1);
    for k in -lines..=lines {
        let u = k as f64 * GRID_STEP;
        let p = map.to_screen(DVec2::splat(u));
        let stroke = if k == 0 { axis } else { grid };
        painter.line_segment(
            [Pos2::new(p.x, rect.top()), Pos2::new(p.x, rect.bottom())],
            stroke,
        );
        painter.line_segment(
            [Pos2::new(rect.left(), p.y), Pos2::new(rect.right(), p.y)],
            stroke,
        );
        if k != 0 && k % label_every == 0 {
            let label = fmt_num(u);
            painter.text(
                Pos2::new(p.x, map.center.y + 2.0),
                Align2::CENTER_TOP,
                &label,
                small.clone(),
                text_color,
            );
            painter.text(
                Pos2::new(map.center.x + 3.0, p.y),
                Align2::LEFT_CENTER,
                &label,
                small.clone(),
                text_color,
            );
        }
    }
    let label_font = FontId::proportional(12.0);
    let label_color = visuals.text_color();
    painter.text(
        Pos2::new(rect.right() - 4.0, map.center.y - 3.0),
        Align2::RIGHT_BOTTOM,
        "a (x)",
        label_font.clone(),
        label_color,
    );
    painter.text(
        Pos2::new(map.center.x + 5.0, rect.top() + 3.0),
        Align2::LEFT_TOP,
        "b (y)",
        label_font,
        label_color,
    );

    // The vectors; the highlighted one last so it sits on top.
    let order = (0..vectors.len())
        .filter(|&i| Some(i) != highlighted)
        .chain(highlighted);
    for i in order {
        let color = vector_color(i);
        let hot = Some(i) == highlighted;
        let tip = handles[i];
        paint_arrow(
            &painter,
            map.center,
            tip,
            Stroke::new(if hot { 3.0 } else { 2.0 }, color),
        );
        let r = if hot {
            HANDLE_RADIUS + 2.0
        } else {
            HANDLE_RADIUS
        };
        painter.circle_filled(tip, r, color);
        if hot {
            painter.circle_stroke(tip, r + 1.5, Stroke::new(1.5, visuals.strong_text_color()));
            let v = vectors[i];
            let offset = if v.x >= 0.0 { 10.0 } else { -10.0 };
            painter.text(
                tip + Vec2::new(offset, -10.0),
                if v.x >= 0.0 {
                    Align2::LEFT_BOTTOM
                } else {
                    Align2::RIGHT_BOTTOM
                },
                format!("({}, {})", fmt_num(v.x), fmt_num(v.y)),
                FontId::proportional(12.0),
                label_color,
            );
        }
    }
    // Pointer position in units, when it is over empty plot space.
    if highlighted.is_none()
        && let Some(p) = response.hover_pos()
    {
        let u = snap(map.to_units(p), true);
        painter.text(
            rect.left_bottom() + Vec2::new(4.0, -3.0),
            Align2::LEFT_BOTTOM,
            format!("({}, {})", fmt_num(u.x), fmt_num(u.y)),
            small,
            text_color,
        );
    }
    painter.rect_stroke(
        rect,
        2.0,
        visuals.widgets.noninteractive.bg_stroke,
        StrokeKind::Inside,
    );

    changed
}

/// The numbers below the plot and the "+" / "−" buttons.
fn rows(ui: &mut egui::Ui, vectors: &mut Vec<DVec2>, min_len: usize, max_len: usize) -> bool {
    let mut changed = false;
    egui::Grid::new("vector_rows")
        .num_columns(4)
        .striped(true)
        .show(ui, |ui| {
            for (i, v) in vectors.iter_mut().enumerate() {
                ui.label(RichText::new(format!("● {}", i + 1)).color(vector_color(i)));
                changed |= ui
                    .add(egui::DragValue::new(&mut v.x).speed(0.1).prefix("a "))
                    .changed();
                changed |= ui
                    .add(egui::DragValue::new(&mut v.y).speed(0.1).prefix("b "))
                    .changed();
                ui.label(format!("|v| {:.1}", v.length()));
                ui.end_row();
            }
        });
    ui.horizontal(|ui| {
        let add = ui
            .add_enabled(vectors.len() < max_len, egui::Button::new("+"))
            .on_hover_text("Add a vector");
        if add.clicked() {
            vectors.push(DVec2::new(GRID_STEP, 0.0));
            changed = true;
        }
        let remove = ui
            .add_enabled(vectors.len() > min_len, egui::Button::new("−"))
            .on_hover_text("Remove the last vector");
        if remove.clicked() {
            vectors.pop();
            changed = true;
        }
        ui.weak("drag the ends · Shift for 0.1 steps");
    });
    changed
}

/// A compact read-only line plot of a 1-D profile (value against index), the
/// available width by 80 points, labelled with its minimum and maximum.
pub fn profile_plot(ui: &mut egui::Ui, profile: &[f64]) {
    let width = ui.available_width().max(40.0);
    let (response, painter) = ui.allocate_painter(Vec2::new(width, PROFILE_HEIGHT), Sense::hover());
    let rect = response.rect;
    let visuals = ui.visuals();
    painter.rect_filled(rect, 2.0, visuals.extreme_bg_color);
    painter.rect_stroke(
        rect,
        2.0,
        visuals.widgets.noninteractive.bg_stroke,
        StrokeKind::Inside,
    );
    let font = FontId::proportional(10.0);
    let text_color = visuals.weak_text_color();
    let Some((lo, hi)) = profile_range(profile) else {
        painter.text(
            rect.center(),
            Align2::CENTER_CENTER,
            "no data",
            font,
            text_color,
        );
        return;
    };
    let inner = rect.shrink2(Vec2::new(4.0, 8.0));
    if lo < 0.0 && hi > 0.0 {
        let y = inner.bottom() - ((0.0 - lo) / (hi - lo)) as f32 * inner.height();
        painter.line_segment(
            [Pos2::new(inner.left(), y), Pos2::new(inner.right(), y)],
            Stroke::new(1.0, visuals.widgets.noninteractive.bg_stroke.color),
        );
    }
    let stroke = Stroke::new(1.5, visuals.widgets.active.fg_stroke.color);
    for line in profile_polylines(profile, inner, lo, hi) {
        if line.len() == 1 {
            painter.circle_filled(line[0], 1.5, stroke.color);
        } else {
            painter.add(Shape::line(line, stroke));
        }
    }
    painter.text(
        rect.left_top() + Vec2::new(3.0, 1.0),
        Align2::LEFT_TOP,
        format!("max {hi:.3}"),
        font.clone(),
        text_color,
    );
    painter.text(
        rect.left_bottom() + Vec2::new(3.0, -1.0),
        Align2::LEFT_BOTTOM,
        format!("min {lo:.3}"),
        font.clone(),
        text_color,
    );
    painter.text(
        rect.right_bottom() + Vec2::new(-3.0, -1.0),
        Align2::RIGHT_BOTTOM,
        format!("n = {}", profile.len()),
        font,
        text_color,
    );
}

#[cfg(test)]
mod tests;
