//! The ground layers, pixel by pixel: terrain kinds and snow, contours by
//! marching squares, shore lines and buildings.

use super::cities::{Shown, covers};
use super::{BUILDING_SIDE, BUILDING_TILE, MapError, MapImage, View, colors};
use crate::terrain::{Terrain, TerrainKind};
use glam::DVec2;

/// Colours every pixel by the terrain's kind (or snow) at its centre; returns
/// which pixels are lake (row-major), for the contours and shore lines.
pub(super) fn kinds(img: &mut MapImage, terrain: &Terrain, v: &View) -> Vec<bool> {
    let (width, height, s) = (v.width, v.height, v.s);
    let mut water = vec![false; width * height];
    for py in 0..height {
        for px in 0..width {
            let (x, y) = (v.x0 + (px as f64 + 0.5) * s, v.y0 - (py as f64 + 0.5) * s);
            let t = terrain.terra(x, y);
            let c = match t.kind {
                TerrainKind::Lake | TerrainKind::Stream => colors::LAKE,
                TerrainKind::Grass => colors::GRASS,
                TerrainKind::Moor => colors::MOOR,
                TerrainKind::Wood => colors::WOOD,
                TerrainKind::Thicket => colors::THICKET,
                TerrainKind::Town => colors::TOWN,
                TerrainKind::Mud => colors::MUD,
                TerrainKind::Marsh => colors::MARSH,
                TerrainKind::Earthwork => colors::EARTHWORK,
                TerrainKind::Road | TerrainKind::Path => colors::ROAD_FILL,
            };
            water[py * width + px] = t.kind == TerrainKind::Lake;
            img.put(px as i64, py as i64, if t.snow { colors::SNOW } else { c });
        }
    }
    water
}

/// Contours by marching squares: a pixel is on a contour when the heights
/// at its four corners straddle a level; every fifth level is thicker.
/// None on lakes or below the lake level.
pub(super) fn contours(
    img: &mut MapImage,
    terrain: &Terrain,
    v: &View,
    interval: f64,
    water: &[bool],
) -> Result<(), MapError> {
    let (width, height, s) = (v.width, v.height, v.s);
    let lake = terrain.params().lake_level;
    let mut h = Vec::new();
    terrain.heights_grid(
        v.x0,
        v.y0 - height as f64 * s,
        s,
        width + 1,
        height + 1,
        &mut h,
    )?;
    // heights_grid rows run south to north; pixel rows north to south.
    let corner = |px: usize, py: usize| h[(height - py) * (width + 1) + px];
    let iv = interval;
    let mut index = Vec::new();
    for py in 0..height {
        for px in 0..width {
            let c = [
                corner(px, py),
                corner(px + 1, py),
                corner(px, py + 1),
                corner(px + 1, py + 1),
            ];
            let (lo, hi) = c
                .iter()
                .fold((f64::MAX, f64::MIN), |(a, b), &v| (a.min(v), b.max(v)));
            let (l0, l1) = ((lo / iv).floor(), (hi / iv).floor());
            if l0 == l1 || hi < lake || water[py * width + px] {
                continue;
            }
            img.put(px as i64, py as i64, colors::CONTOUR);
            // A level in l0+1 ..= l1 is a multiple of 5 (an index contour):
            // one comparison, however many levels a tiny interval puts here.
            if (l1 / 5.0).floor() > (l0 / 5.0).floor() {
                index.push((px as i64, py as i64));
            }
        }
    }
    for (px, py) in index {
        img.put(px + 1, py, colors::CONTOUR);
        img.put(px, py + 1, colors::CONTOUR);
    }
    Ok(())
}

/// Shore lines: the pixels where lake meets land to the east or south.
pub(super) fn shores(img: &mut MapImage, v: &View, water: &[bool]) {
    let (width, height) = (v.width, v.height);
    for py in 0..height {
        for px in 0..width {
            let w = water[py * width + px];
            let edge = (px + 1 < width && water[py * width + px + 1] != w)
                || (py + 1 < height && water[(py + 1) * width + px] != w);
            if edge {
                img.put(px as i64, py as i64, colors::WATER_LINE);
            }
        }
    }
}

/// Buildings: black squares, where one covers at least a pixel. Scanned
/// in tiles that each stay within the buildings' scan limit: at most
/// MAX_MAP_PIXELS · BUILDING_SIDE² / 16² lattice points in all. None in a
/// city's footprint (as the laid ground has none there).
pub(super) fn buildings(img: &mut MapImage, terrain: &Terrain, v: &View, cities: &[Shown<'_>]) {
    if v.s > BUILDING_SIDE {
        return;
    }
    let (wmin, wmax) = v.world();
    let (bmin, bmax) = (wmin - 8.0, wmax + 8.0);
    let tiles = ((bmax - bmin) / BUILDING_TILE)
        .ceil()
        .min(DVec2::splat(1e6));
    let tile_min = |tx: f64, ty: f64| (bmin + DVec2::new(tx, ty) * BUILDING_TILE).min(bmax);
    for ty in 0..tiles.y as usize {
        for tx in 0..tiles.x as usize {
            let (tx, ty) = (tx as f64, ty as f64);
            let Ok(found) =
                terrain.try_buildings_in(tile_min(tx, ty), tile_min(tx + 1.0, ty + 1.0))
            else {
                continue;
            };
            for b in found {
                if !cities.is_empty() && covers(cities, b.centre) {
                    continue;
                }
                let (lo, hi) = b.footprint();
                let (a, c) = (
                    v.to_px(DVec2::new(lo.x, hi.y)),
                    v.to_px(DVec2::new(hi.x, lo.y)),
                );
                img.rect(
                    a.x.round() as i64,
                    a.y.round() as i64,
                    c.x.round().max(a.x.round() + 1.0) as i64,
                    c.y.round().max(a.y.round() + 1.0) as i64,
                    colors::BLACK,
                );
            }
        }
    }
}
