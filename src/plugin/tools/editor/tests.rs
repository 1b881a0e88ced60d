//! The plot maths of the vector editor, without a UI.

use super::*;

fn square(side: f32) -> Rect {
    Rect::from_min_size(Pos2::new(10.0, 20.0), Vec2::splat(side))
}

#[test]
fn mapping_round_trips_and_fits_extent() {
    let map = PlotMap::fit(square(300.0), 40.0);
    assert_eq!(map.to_screen(DVec2::ZERO), Pos2::new(160.0, 170.0));
    // +extent lands PLOT_MARGIN inside the right edge; y points up.
    let p = map.to_screen(DVec2::new(40.0, 40.0));
    assert!((p.x - (310.0 - PLOT_MARGIN)).abs() < 1e-3, "{p:?}");
    assert!((p.y - (20.0 + PLOT_MARGIN)).abs() < 1e-3, "{p:?}");
    for v in [
        DVec2::new(13.0, 26.0),
        DVec2::new(-70.5, 3.25),
        DVec2::new(0.1, -29.0),
    ] {
        let back = map.to_units(map.to_screen(v));
        assert!((back - v).length() < 1e-4, "{v} -> {back}");
    }
    let d = map.delta_to_units(Vec2::new(map.scale * 3.0, map.scale * 2.0));
    assert!((d - DVec2::new(3.0, -2.0)).length() < 1e-5, "{d}");
}

#[test]
fn snapping_to_whole_and_tenths() {
    assert_eq!(snap(DVec2::new(12.6, -3.4), false), DVec2::new(13.0, -3.0));
    assert_eq!(snap(DVec2::new(12.64, -3.46), true), DVec2::new(12.6, -3.5));
    assert_eq!(snap(DVec2::new(13.3, 0.0), true), DVec2::new(13.3, 0.0));
}

#[test]
fn nearest_handle_within_radius() {
    let handles = [
        Pos2::new(0.0, 0.0),
        Pos2::new(10.0, 0.0),
        Pos2::new(30.0, 0.0),
    ];
    assert_eq!(nearest_handle(&handles, Pos2::new(7.0, 1.0), 10.0), Some(1));
    assert_eq!(nearest_handle(&handles, Pos2::new(2.0, 0.0), 10.0), Some(0));
    assert_eq!(nearest_handle(&handles, Pos2::new(20.5, 0.0), 5.0), None);
    assert_eq!(nearest_handle(&[], Pos2::ZERO, 10.0), None);
    // Coincident handles: the later (top-most) one wins.
    let same = [Pos2::new(5.0, 5.0), Pos2::new(5.0, 5.0)];
    assert_eq!(nearest_handle(&same, Pos2::new(5.0, 6.0), 10.0), Some(1));
}

#[test]
fn drag_target_snaps_and_clamps() {
    let map = PlotMap::fit(square(300.0), 40.0);
    let start = DVec2::new(13.0, 26.0);
    let delta = Vec2::new(2.4 * map.scale, -1.6 * map.scale);
    assert_eq!(
        drag_target(start, delta, map, false, 40.0),
        DVec2::new(15.0, 28.0)
    );
    assert_eq!(
        drag_target(start, delta, map, true, 40.0),
        DVec2::new(15.4, 27.6)
    );
    let far = Vec2::new(1000.0, 1000.0);
    assert_eq!(
        drag_target(start, far, map, false, 40.0),
        DVec2::new(40.0, -40.0)
    );
}

#[test]
fn profile_range_and_lines() {
    assert_eq!(profile_range(&[]), None);
    assert_eq!(profile_range(&[f64::NAN]), None);
    assert_eq!(
        profile_range(&[1.0, -2.0, f64::NAN, 3.0]),
        Some((-2.0, 3.0))
    );
    let rect = Rect::from_min_size(Pos2::ZERO, Vec2::new(100.0, 50.0));
    let lines = profile_polylines(&[0.0, 1.0, f64::NAN, 0.5], rect, 0.0, 1.0);
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0].len(), 2);
    assert_eq!(lines[0][0], Pos2::new(0.0, 50.0));
    assert!(lines[0][1].distance(Pos2::new(100.0 / 3.0, 0.0)) < 1e-3);
    assert_eq!(lines[1], vec![Pos2::new(100.0, 25.0)]);
}

fn input(time: f64, events: Vec<egui::Event>, shift: bool) -> egui::RawInput {
    let modifiers = egui::Modifiers {
        shift,
        ..Default::default()
    };
    egui::RawInput {
        screen_rect: Some(Rect::from_min_size(Pos2::ZERO, Vec2::new(800.0, 800.0))),
        time: Some(time),
        modifiers,
        events,
        ..Default::default()
    }
}

fn press(pos: Pos2, pressed: bool) -> egui::Event {
    egui::Event::PointerButton {
        pos,
        button: egui::PointerButton::Primary,
        pressed,
        modifiers: Default::default(),
    }
}

/// Drives the real widget headlessly: press on the second vector's handle,
/// move the pointer, release, and check the vector moved by whole units.
#[test]
fn headless_drag_moves_a_vector() {
    let ctx = egui::Context::default();
    let mut vectors = vec![
        DVec2::new(0.0, 27.0),
        DVec2::new(13.0, 26.0),
        DVec2::new(21.0, 21.0),
    ];
    let frame = |raw: egui::RawInput, vectors: &mut Vec<DVec2>| {
        let mut changed = false;
        let _ = ctx.run_ui(raw, |ui| {
            changed = vector_editor(ui, "heights", vectors, 40.0, 1, 8);
        });
        changed
    };

    // The plot sits at the top-left of the root ui, PLOT_MAX_SIDE square.
    let map = PlotMap::fit(
        Rect::from_min_size(Pos2::ZERO, Vec2::splat(PLOT_MAX_SIDE)),
        40.0,
    );
    let handle = map.to_screen(vectors[1]) + Vec2::new(2.0, -1.0); // slightly off-centre
    let delta = Vec2::new(3.3 * map.scale, -2.2 * map.scale); // +3.3 a, +2.2 b

    assert!(!frame(input(0.0, vec![], false), &mut vectors));
    let moved = egui::Event::PointerMoved(handle);
    assert!(!frame(
        input(0.1, vec![moved, press(handle, true)], false),
        &mut vectors
    ));
    let to = handle + delta;
    let changed = frame(
        input(0.2, vec![egui::Event::PointerMoved(to)], false),
        &mut vectors,
    );
    assert!(changed, "dragging the handle should report a change");
    assert_eq!(vectors[1], DVec2::new(16.0, 28.0));
    assert_eq!(vectors[0], DVec2::new(0.0, 27.0));
    assert_eq!(vectors[2], DVec2::new(21.0, 21.0));

    // Holding Shift gives tenths.
    let changed = frame(input(0.3, vec![], true), &mut vectors);
    assert!(changed);
    assert_eq!(vectors[1], DVec2::new(16.3, 28.2));

    // Release; further pointer movement no longer edits.
    assert!(!frame(
        input(0.4, vec![press(to, false)], false),
        &mut vectors
    ));
    let away = egui::Event::PointerMoved(to + Vec2::new(40.0, 40.0));
    assert!(!frame(input(0.5, vec![away], false), &mut vectors));
    assert_eq!(vectors[1], DVec2::new(16.3, 28.2));
}
