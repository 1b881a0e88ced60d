//! Procedural meshes for things on the ground (trees, features, buildings).
//!
//! Everything is built in Bevy local space (metres, Y up) with the object's
//! ground contact point at the origin; trunks and bases reach a little below
//! the ground so that nothing floats on a slope. Meshes are low-poly,
//! flat-shaded (three vertices per triangle, face normals) and
//! vertex-coloured (linear RGBA), so that thousands can be drawn. Each kind
//! comes from one function: build it once and share the handle.

use super::mesh::colored_mesh;
use crate::terrain::Feature;
use bevy::math::{Affine3A, Quat, Vec3, Vec3Swizzles};
use bevy::mesh::Mesh;
use std::f32::consts::{FRAC_PI_2, PI, TAU};
use std::iter::once;
use std::sync::LazyLock;

mod solid;
#[cfg(test)]
mod tests;

use solid::{Solid, Welded, place, shade, srgb, v3};

/// Number of tree varieties (the terrain's selector gives 0..4).
pub const TREE_VARIETIES: usize = 4;
/// Object cells this far from the focus (metres, to the cell's nearest
/// point across the ground and down to its highest object, see
/// [`CellKey::view_distance`](crate::plugin::CellKey::view_distance)) show
/// their trees with a far mesh of a quarter of the triangles or fewer.
pub const FAR_TREES: f64 = 300.0;

/// Tree variety `v` (0: conifer/spruce — dark green cone tiers on a brown
/// trunk, ~14 m; 1: broadleaf oak — round lumpy crown, ~11 m; 2: birch —
/// slender pale trunk, small light-green crown, ~12 m; 3: pine — tall bare
/// trunk with a flat-topped crown, ~15 m). `v` is taken modulo
/// [`TREE_VARIETIES`].
pub fn tree_mesh(v: usize) -> Mesh {
    let bark = srgb(0.36, 0.25, 0.16);
    let mut s = Solid::default();
    match v % TREE_VARIETIES {
        0 => {
            // Spruce: drooping cone tiers, lighter towards the top.
            s.add(Solid::frustum(6, 0.32, 0.12, -0.5, 4.0, bark));
            let green = srgb(0.11, 0.27, 0.14);
            let tiers = [
                (1.8, 5.2, 2.9),
                (4.6, 4.6, 2.35),
                (7.3, 4.0, 1.8),
                (9.8, 4.2, 1.15),
            ];
            for (i, (y, h, r)) in tiers.into_iter().enumerate() {
                let profile = [(0.0, y + 0.5), (r, y), (0.0, y + h)];
                let col = shade(green, 1.0 + 0.08 * i as f32);
                s.add(Solid::lathe(8, 0.4 * i as f32, &profile, col));
            }
        }
        1 => {
            // Oak: a stout trunk, two limbs and a lumpy crown.
            s.add(Solid::frustum(7, 0.55, 0.35, -0.5, 5.5, bark));
            s.add(Solid::rod(
                v3(0.0, 4.2, 0.0),
                v3(1.6, 6.4, 0.4),
                0.22,
                0.12,
                5,
                bark,
            ));
            s.add(Solid::rod(
                v3(0.0, 4.6, 0.0),
                v3(-1.3, 6.6, -0.8),
                0.2,
                0.1,
                5,
                bark,
            ));
            let green = srgb(0.22, 0.38, 0.14);
            s.add(Solid::blob(1, 0.15, 11, green).xf(place(
                v3(3.4, 2.7, 3.4),
                0.0,
                v3(0.0, 7.6, 0.0),
            )));
            for k in 0..4u32 {
                let a = 0.35 + k as f32 * FRAC_PI_2;
                let at = v3(2.3 * a.cos(), 7.3 + 0.5 * (k % 2) as f32, 2.3 * a.sin());
                let col = shade(green, 0.92 + 0.05 * k as f32);
                s.add(Solid::blob(0, 0.12, 20 + k, col).xf(place(Vec3::splat(1.9), a, at)));
            }
            let top = place(Vec3::splat(1.8), 0.0, v3(0.3, 9.3, -0.2));
            s.add(Solid::blob(0, 0.12, 30, shade(green, 1.08)).xf(top));
        }
        2 => {
            // Birch: a slender white trunk with dark bands, a small crown.
            let (white, dark) = (srgb(0.86, 0.85, 0.80), srgb(0.22, 0.21, 0.20));
            let ys = [-0.5, 1.3, 1.45, 3.2, 3.32, 5.1, 5.2, 6.9, 6.98, 9.6];
            let bole = ys.iter().map(|&y| (0.17 - 0.009 * (y + 0.5), y));
            let profile: Vec<_> = once((0.0, -0.5))
                .chain(bole)
                .chain(once((0.0, 9.6)))
                .collect();
            // Segment k joins profile points k and k + 1: the even ones
            // between the caps are the bands.
            let band = |k: usize| (2..ys.len()).contains(&k) && k.is_multiple_of(2);
            s.add(Solid::lathe_with(5, 0.0, &profile, |k| {
                if band(k) { dark } else { white }
            }));
            let green = srgb(0.45, 0.62, 0.24);
            s.add(Solid::blob(1, 0.2, 40, green).xf(place(
                v3(1.9, 2.7, 1.9),
                0.0,
                v3(0.0, 9.4, 0.0),
            )));
            let side = place(v3(1.3, 1.5, 1.3), 0.7, v3(0.9, 7.3, 0.5));
            s.add(Solid::blob(0, 0.15, 41, shade(green, 0.9)).xf(side));
        }
        _ => {
            // Pine: a tall bare trunk under a flat, spreading crown.
            let bark = srgb(0.48, 0.30, 0.19);
            s.add(Solid::frustum(6, 0.4, 0.2, -0.5, 13.4, bark));
            let green = srgb(0.15, 0.30, 0.16);
            s.add(Solid::blob(1, 0.12, 50, green).xf(place(
                v3(3.6, 1.2, 3.6),
                0.0,
                v3(0.0, 13.7, 0.0),
            )));
            let tufts = [(v3(2.3, 12.3, 0.9), 1.7), (v3(-1.7, 11.8, -1.9), 1.5)];
            for (k, (at, size)) in tufts.into_iter().enumerate() {
                s.add(Solid::rod(
                    v3(0.0, at.y - 1.2, 0.0),
                    at,
                    0.14,
                    0.08,
                    4,
                    bark,
                ));
                let tuft = place(v3(size, 0.5 * size, size), k as f32, at);
                s.add(Solid::blob(0, 0.12, 51 + k as u32, shade(green, 0.9)).xf(tuft));
            }
        }
    }
    s.into_mesh()
}

/// One far tree of variety `v` alone, as in [`far_trees_mesh`].
#[cfg(test)]
pub fn far_tree_mesh(v: usize) -> Mesh {
    far_trees_mesh([(v, Affine3A::IDENTITY)]).expect("a tree")
}

/// Faces of a far tree that meet at less than this angle (its cosine, 78°)
/// share their vertices: seen from [`FAR_TREES`] on, a crown is as well
/// smooth as faceted, on about half as many vertices as corners.
const FAR_SMOOTH: f32 = 0.2;

/// Trees of varieties `v` placed by `m` (scale, turn, then move: an
/// entity's transform), each in its far shape (`far_tree`) on shared
/// vertices, in one mesh; `None` for no trees. A cell's far trees are one
/// mesh, not an entity each.
pub fn far_trees_mesh(trees: impl IntoIterator<Item = (usize, Affine3A)>) -> Option<Mesh> {
    static FAR: LazyLock<[Welded; TREE_VARIETIES]> =
        LazyLock::new(|| std::array::from_fn(|v| far_tree(v).welded(FAR_SMOOTH)));
    let mut all = Welded::default();
    for (v, m) in trees {
        all.add(&FAR[v % TREE_VARIETIES], m);
    }
    (!all.indices.is_empty()).then(|| all.into_mesh())
}

/// Tree variety `v` as seen from afar ([`FAR_TREES`] metres and more):
/// the same outline and colours as [`tree_mesh`] in a quarter of its
/// triangles or fewer (a thin trunk under one cone or one coarse crown).
fn far_tree(v: usize) -> Solid {
    let bark = srgb(0.36, 0.25, 0.16);
    let mut s = Solid::default();
    match v % TREE_VARIETIES {
        0 => {
            s.add(Solid::frustum(3, 0.32, 0.12, -0.5, 2.5, bark));
            let green = shade(srgb(0.11, 0.27, 0.14), 1.1);
            s.add(Solid::lathe(
                5,
                0.0,
                &[(0.0, 2.3), (2.9, 1.8), (0.0, 14.0)],
                green,
            ));
        }
        1 => {
            s.add(Solid::frustum(4, 0.55, 0.35, -0.5, 5.5, bark));
            let green = srgb(0.22, 0.38, 0.14);
            let crown = place(v3(3.6, 2.9, 3.6), 0.0, v3(0.0, 7.8, 0.0));
            s.add(Solid::blob(0, 0.1, 60, green).xf(crown));
        }
        2 => {
            let white = srgb(0.86, 0.85, 0.80);
            s.add(Solid::frustum(4, 0.17, 0.08, -0.5, 8.0, white));
            let green = srgb(0.45, 0.62, 0.24);
            let crown = place(v3(1.9, 2.9, 1.9), 0.0, v3(0.0, 9.0, 0.0));
            s.add(Solid::blob(0, 0.1, 61, green).xf(crown));
        }
        _ => {
            let bark = srgb(0.48, 0.30, 0.19);
            s.add(Solid::frustum(4, 0.4, 0.2, -0.5, 13.4, bark));
            let green = srgb(0.15, 0.30, 0.16);
            let crown = place(v3(3.6, 1.3, 3.6), 0.0, v3(0.0, 13.7, 0.0));
            s.add(Solid::blob(0, 0.1, 62, green).xf(crown));
        }
    }
    s
}

/// A point feature's mesh (Mine: dark shaft opening with a timber frame and
/// a little headframe; Boulder: grey irregular rock ~1.5 m; Root: upturned
/// root plate, brown disc on edge with roots; WaterHole: small dark-blue pond
/// disc slightly above ground with a muddy rim; Knoll: low grassy mound
/// ~1.5 m high, 8 m across; ManMade: a stone plinth with a bright red
/// abstract sculpture, ~3 m; Cone: orange-and-white traffic cone 0.7 m).
pub fn feature_mesh(f: Feature) -> Mesh {
    let timber = srgb(0.42, 0.30, 0.18);
    let mut s = Solid::default();
    match f {
        Feature::Mine => {
            s.add(Solid::cuboid(
                v3(-0.8, -0.3, -0.8),
                v3(0.8, 0.03, 0.8),
                srgb(0.04, 0.04, 0.04),
            ));
            for sign in [-1.0, 1.0] {
                let (a, b) = (v3(-1.1, 0.12, 0.95 * sign), v3(1.1, 0.12, 0.95 * sign));
                s.add(Solid::rod(a, b, 0.15, 0.15, 5, timber));
                s.add(Solid::rod(a.zyx(), b.zyx(), 0.15, 0.15, 5, timber));
            }
            // Headframe: four legs leaning in, braced, a cap and a wheel.
            let leg = |sx: f32, sz: f32, t: f32| {
                v3(sx * 1.0, -0.2, sz * 0.95).lerp(v3(sx * 0.3, 3.3, sz * 0.3), t)
            };
            for (sx, sz) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
                s.add(Solid::rod(
                    leg(sx, sz, 0.0),
                    leg(sx, sz, 1.0),
                    0.08,
                    0.08,
                    4,
                    timber,
                ));
            }
            for sz in [-1.0, 1.0] {
                s.add(Solid::rod(
                    leg(-1.0, sz, 0.15),
                    leg(1.0, sz, 0.6),
                    0.06,
                    0.06,
                    4,
                    timber,
                ));
            }
            s.add(Solid::cuboid(
                v3(-0.45, 3.2, -0.4),
                v3(0.45, 3.38, 0.4),
                timber,
            ));
            let wheel = Affine3A::from_rotation_translation(
                Quat::from_rotation_x(FRAC_PI_2),
                v3(0.0, 3.9, 0.0),
            );
            s.add(Solid::frustum(10, 0.55, 0.55, -0.06, 0.06, srgb(0.25, 0.25, 0.27)).xf(wheel));
        }
        Feature::Boulder => {
            let rock = Solid::blob(1, 0.22, 60, srgb(0.48, 0.47, 0.45));
            s.add(rock.xf(place(v3(1.05, 0.95, 0.85), 0.5, v3(0.0, 0.55, 0.0))));
        }
        Feature::Root => {
            // The plate stands on edge facing +Z; the fallen trunk lies to -Z.
            let (soil, root) = (srgb(0.33, 0.24, 0.16), srgb(0.40, 0.29, 0.19));
            let centre = v3(0.0, 1.25, 0.0);
            s.add(Solid::blob(1, 0.18, 70, soil).xf(place(v3(1.5, 1.35, 0.35), 0.0, centre)));
            s.add(Solid::rod(
                v3(0.0, 0.5, -0.2),
                v3(0.3, 0.45, -3.0),
                0.35,
                0.3,
                6,
                srgb(0.36, 0.25, 0.16),
            ));
            for k in 0..7 {
                let a = -0.2 + k as f32 * (PI + 0.4) / 6.0;
                let rim = centre + v3(1.3 * a.cos(), 1.15 * a.sin(), 0.0);
                let out = v3(a.cos(), a.sin(), 0.3).normalize() * (0.5 + 0.05 * k as f32);
                s.add(Solid::rod(rim, rim + out, 0.07, 0.02, 4, root));
                let face = centre + v3(0.6 * (a + 0.3).cos(), 0.55 * (a + 0.3).sin(), 0.25);
                s.add(Solid::rod(
                    face,
                    face + v3(0.2 * a.cos(), 0.1, 0.55),
                    0.06,
                    0.02,
                    4,
                    root,
                ));
            }
        }
        Feature::WaterHole => {
            let rim = [(0.0, -0.3), (3.3, -0.3), (2.9, 0.04), (0.0, 0.04)];
            s.add(Solid::lathe(12, 0.0, &rim, srgb(0.36, 0.28, 0.18)));
            s.add(Solid::frustum(
                12,
                2.6,
                2.6,
                0.0,
                0.1,
                srgb(0.08, 0.18, 0.32),
            ));
        }
        Feature::Knoll => {
            let mound = [
                (0.0, -0.4),
                (4.2, -0.4),
                (3.8, 0.35),
                (2.9, 0.95),
                (1.6, 1.38),
                (0.0, 1.5),
            ];
            s.add(Solid::lathe(10, 0.0, &mound, srgb(0.45, 0.56, 0.26)));
        }
        Feature::ManMade => {
            s.add(Solid::cuboid(
                v3(-0.6, -0.3, -0.6),
                v3(0.6, 1.0, 0.6),
                srgb(0.62, 0.60, 0.56),
            ));
            let red = srgb(0.85, 0.10, 0.08);
            s.add(Solid::rod(
                v3(0.35, 1.0, 0.1),
                v3(-0.35, 2.85, -0.1),
                0.12,
                0.12,
                4,
                red,
            ));
            // A ring in a vertical plane turned a little about Y.
            let (u, centre) = (v3(0.4f32.cos(), 0.0, 0.4f32.sin()), v3(0.0, 2.15, 0.0));
            let ring = |k: usize| {
                let a = TAU * k as f32 / 8.0;
                centre + 0.7 * (a.cos() * u + a.sin() * Vec3::Y)
            };
            for k in 0..8 {
                s.add(Solid::rod(ring(k), ring(k + 1), 0.08, 0.08, 4, red));
            }
        }
        Feature::Cone => {
            let orange = srgb(0.95, 0.40, 0.05);
            s.add(Solid::cuboid(
                v3(-0.19, 0.0, -0.19),
                v3(0.19, 0.03, 0.19),
                orange,
            ));
            let r = |y: f32| 0.15 - 0.125 * (y - 0.03) / 0.67;
            let profile = [
                (0.0, 0.03),
                (0.15, 0.03),
                (r(0.28), 0.28),
                (r(0.44), 0.44),
                (0.025, 0.7),
                (0.0, 0.7),
            ];
            let white = srgb(0.92, 0.92, 0.90);
            s.add(Solid::lathe_with(12, 0.0, &profile, |k| {
                if k == 2 { white } else { orange }
            }));
        }
    }
    s.into_mesh()
}

/// A unit building: footprint 1 × 1 centred on the origin, walls from
/// y = 0 to y = 1, with a roof of the given variant (taken modulo 4; 0: flat
/// roof with a parapet, 1: gabled roof, 2: hipped roof, 3: flat roof with a
/// small rooftop box) reaching at most y = 1.35. The caller scales it by
/// (12, storeys × storey height, 12). Walls are a neutral light colour (to be
/// tinted by the material), roofs darker.
pub fn building_mesh(variant: u32) -> Mesh {
    let wall = srgb(0.85, 0.83, 0.78);
    let (flat, tiles) = (srgb(0.38, 0.38, 0.40), srgb(0.45, 0.22, 0.16));
    let mut s = Solid::cuboid(v3(-0.5, 0.0, -0.5), v3(0.5, 1.0, 0.5), wall);
    match variant % 4 {
        1 => s.add(Solid::pitched(0.5, 1.35, tiles, wall)),
        2 => s.add(Solid::pitched(0.2, 1.3, tiles, tiles)),
        v => {
            // The roof slab is inset, leaving a rim (or room for a parapet).
            s.add(Solid::cuboid(
                v3(-0.47, 1.0, -0.47),
                v3(0.47, 1.02, 0.47),
                flat,
            ));
            if v == 0 {
                let (lo, hi, t) = (-0.5, 0.5, 0.04);
                let low = shade(wall, 0.9);
                s.add(Solid::cuboid(v3(lo, 1.0, lo), v3(hi, 1.08, lo + t), low));
                s.add(Solid::cuboid(v3(lo, 1.0, hi - t), v3(hi, 1.08, hi), low));
                s.add(Solid::cuboid(
                    v3(lo, 1.0, lo + t),
                    v3(lo + t, 1.08, hi - t),
                    low,
                ));
                s.add(Solid::cuboid(
                    v3(hi - t, 1.0, lo + t),
                    v3(hi, 1.08, hi - t),
                    low,
                ));
            } else {
                s.add(Solid::cuboid(
                    v3(0.05, 1.0, -0.3),
                    v3(0.35, 1.15, 0.0),
                    srgb(0.5, 0.5, 0.52),
                ));
            }
        }
    }
    s.into_mesh()
}
