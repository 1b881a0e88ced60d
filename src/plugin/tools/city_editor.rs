//! The inspector's city section: the nearest laid city, and for a planned
//! one its tensor field — take its designed bases into the settings, then
//! add, move, turn and delete them (every edit re-traces the city's
//! streets), and show the field as a cross-hatch over the ground.

use crate::city::tensor::{BasisField, BasisKind, TensorField};
use crate::city::{City, CityBases, CityLayout, CityStyle};
use crate::plugin::ReliefAssets;
use crate::plugin::stream::coords::RenderOrigin;
use crate::plugin::stream::coords::WorldAnchor;
use crate::plugin::stream::mesh::colored_mesh;
use crate::plugin::stream::roads::LaidRoads;
use crate::plugin::stream::settings::{TerrainSettings, TerrainState};
use bevy::math::{DVec2, DVec3};
use bevy::prelude::*;
use bevy_egui::egui;
use std::sync::Arc;

/// The cross-hatch overlay's state.
#[derive(Resource, Default)]
pub struct FieldOverlay {
    /// Shown or not.
    pub on: bool,
    /// The overlay entity and the layout it shows.
    shown: Option<(Entity, Arc<CityLayout>)>,
}

/// The laid city nearest to `focus` (by its footprint's centre).
pub fn nearest_city(laid: &LaidRoads, focus: DVec2) -> Option<Arc<CityLayout>> {
    (laid.layouts.iter())
        .min_by(|a, b| {
            let d = |l: &CityLayout| l.city.centre.distance(focus);
            d(a).total_cmp(&d(b)).then(a.city.id.cmp(&b.city.id))
        })
        .cloned()
}

/// The city section of the inspector window.
pub fn city_section(
    ui: &mut egui::Ui,
    settings: &mut TerrainSettings,
    city: Option<&CityLayout>,
    focus: DVec2,
    overlay: &mut bool,
) {
    let Some(l) = city else {
        ui.label("No city laid near here (cities are about 6 km apart).");
        return;
    };
    let c = &l.city;
    ui.label(format!(
        "City {:?}: {:?}, radius {:.0} m, {:.1} km away; {} blocks, {} lots, {} buildings",
        c.id,
        c.style,
        c.radius,
        c.centre.distance(focus) / 1000.0,
        l.streets.blocks.len(),
        l.lots.len(),
        l.buildings().count(),
    ));
    if c.style != CityStyle::Planned {
        ui.label("Organic city: planar-graph streets (edit them under All settings → roads → cities → planar).");
        return;
    }
    ui.checkbox(overlay, "Show the field (major orange, minor blue)");
    let fields = &mut settings.roads.cities.fields;
    let Some(k) = fields.iter().position(|f| f.city == c.id) else {
        ui.label("Its field is designed from the site.");
        if ui.button("Edit this city's field").clicked() {
            let bases = (l.field.iter())
                .flat_map(|f: &TensorField| f.fields.iter())
                .filter(|b| !matches!(b.kind, BasisKind::Heightmap { .. }))
                .cloned()
                .collect();
            fields.push(CityBases { city: c.id, bases });
        }
        return;
    };
    let bases = &mut fields[k].bases;
    let mut remove = None;
    for (i, b) in bases.iter_mut().enumerate() {
        ui.horizontal(|ui| {
            let name = match b.kind {
                BasisKind::Grid { .. } => "grid",
                BasisKind::Radial => "radial",
                BasisKind::Polyline { .. } => "line",
                BasisKind::Heightmap { .. } => "slope",
            };
            ui.label(format!("{i} {name}"));
            ui.add(
                egui::DragValue::new(&mut b.centre.x)
                    .speed(5.0)
                    .prefix("x "),
            );
            ui.add(
                egui::DragValue::new(&mut b.centre.y)
                    .speed(5.0)
                    .prefix("y "),
            );
            ui.add(
                egui::DragValue::new(&mut b.size)
                    .speed(5.0)
                    .range(1.0..=1.0e5)
                    .prefix("size "),
            );
            ui.add(
                egui::DragValue::new(&mut b.decay)
                    .speed(0.05)
                    .range(0.0..=20.0)
                    .prefix("decay "),
            );
            if let BasisKind::Grid { theta } = &mut b.kind {
                let mut deg = theta.to_degrees();
                if ui
                    .add(egui::DragValue::new(&mut deg).speed(1.0).suffix("°"))
                    .changed()
                {
                    *theta = deg.to_radians();
                }
            }
            if ui.small_button("✖").on_hover_text("Delete").clicked() {
                remove = Some(i);
            }
        });
    }
    if let Some(i) = remove {
        bases.remove(i);
    }
    let mut back = false;
    ui.horizontal(|ui| {
        let r = c.radius;
        if ui.button("+ grid here").clicked() {
            bases.push(BasisField::grid(focus, r, 2.0, 0.0));
        }
        if ui.button("+ radial here").clicked() {
            bases.push(BasisField::radial(focus, 0.4 * r, 3.0));
        }
        back = ui.button("Back to the design").clicked();
    });
    if back {
        fields.remove(k);
    }
}

/// Keeps the cross-hatch of the nearest planned city's field while the
/// overlay is on.
pub(crate) fn update_field_overlay(
    mut commands: Commands,
    laid: Res<LaidRoads>,
    state: Res<TerrainState>,
    origin: Res<RenderOrigin>,
    assets: Option<Res<ReliefAssets>>,
    focus: Res<crate::plugin::stream::coords::FocusState>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut overlay: ResMut<FieldOverlay>,
) {
    let want = if overlay.on {
        focus
            .world
            .and_then(|f| nearest_city(&laid, f.truncate()))
            .filter(|l| l.field.is_some())
    } else {
        None
    };
    let same = match (&overlay.shown, &want) {
        (Some((_, a)), Some(b)) => Arc::ptr_eq(a, b),
        (None, None) => true,
        _ => false,
    };
    if same {
        return;
    }
    if let Some((e, _)) = overlay.shown.take() {
        commands.entity(e).despawn();
    }
    let Some(l) = want else { return };
    let Some(field) = &l.field else { return };
    let c = l.city.centre;
    let mesh = cross_hatch(field, &l.city, |p| state.terrain.height(p.x, p.y));
    let anchor = WorldAnchor(DVec3::new(c.x, c.y, 0.0));
    let mut e = commands.spawn((
        Name::new("city field"),
        anchor,
        Transform::from_translation(origin.to_render(anchor.0)),
        Visibility::Inherited,
        Mesh3d(meshes.add(mesh)),
    ));
    if let Some(m) = assets.and_then(|a| a.vertex.clone()) {
        e.insert(MeshMaterial3d(m));
    }
    overlay.shown = Some((e.id(), l));
}

/// Spacing of the cross-hatch, metres.
const HATCH: f64 = 40.0;

/// Short strokes along the major (orange) and minor (blue) directions on a
/// grid over the footprint, a little above the ground, relative to `anchor`.
fn cross_hatch(field: &TensorField, city: &City, ground: impl Fn(DVec2) -> f64) -> Mesh {
    let anchor = city.centre;
    let (lo, hi) = city.bounds();
    let (mut pos, mut nor, mut col, mut idx) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut y = lo.y;
    while y <= hi.y {
        let mut x = lo.x;
        while x <= hi.x {
            let p = DVec2::new(x, y);
            if city.contains(p) {
                for (dir, color) in [
                    (field.major(p), [1.0, 0.45, 0.05, 1.0]),
                    (field.minor(p), [0.1, 0.35, 1.0, 1.0]),
                ] {
                    let Some(d) = dir else { continue };
                    let (a, b) = (p - d * HATCH * 0.35, p + d * HATCH * 0.35);
                    let side = d.perp() * 0.8;
                    let base = pos.len() as u32;
                    for q in [a - side, a + side, b + side, b - side] {
                        let z = ground(q) + 2.0;
                        let v = DVec3::new(q.x - anchor.x, q.y - anchor.y, z);
                        pos.push(crate::plugin::stream::coords::to_bevy(v, DVec2::ZERO).to_array());
                        nor.push([0.0, 1.0, 0.0]);
                        col.push(color);
                    }
                    idx.extend([base, base + 2, base + 1, base, base + 3, base + 2]);
                }
            }
            x += HATCH;
        }
        y += HATCH;
    }
    colored_mesh(pos, nor, col, idx)
}
