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
use bevy::color::{ColorToComponents, LinearRgba, Srgba};
use bevy::math::{Affine3A, BVec3, Quat, Vec3, Vec3Swizzles};
use bevy::mesh::Mesh;
use std::f32::consts::{FRAC_PI_2, PI, TAU};
use std::iter::once;

/// Number of tree varieties (the terrain's selector gives 0..4).
pub const TREE_VARIETIES: usize = 4;

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

type Rgba = [f32; 4];

/// Linear RGBA from sRGB components.
fn srgb(r: f32, g: f32, b: f32) -> Rgba {
    LinearRgba::from(Srgba::rgb(r, g, b)).to_f32_array()
}

/// A colour made lighter (`f > 1`) or darker.
fn shade(c: Rgba, f: f32) -> Rgba {
    [c[0] * f, c[1] * f, c[2] * f, c[3]].map(|x| x.min(1.0))
}

fn v3(x: f32, y: f32, z: f32) -> Vec3 {
    Vec3::new(x, y, z)
}

/// Scale, then turn `yaw` radians about Y, then move to `at`.
fn place(scale: Vec3, yaw: f32, at: Vec3) -> Affine3A {
    Affine3A::from_scale_rotation_translation(scale, Quat::from_rotation_y(yaw), at)
}

/// A deterministic value in [-1, 1] for a point (equal points, equal values).
fn hash(p: Vec3, seed: u32) -> f32 {
    let mut h = seed.wrapping_mul(0x9E37_79B9) ^ 0x2545_F491;
    for c in (p * 1024.0).round().as_ivec3().to_array() {
        h = (h ^ c as u32).wrapping_mul(0x85EB_CA6B);
        h ^= h >> 13;
    }
    h = h.wrapping_mul(0xC2B2_AE35);
    h ^= h >> 16;
    h as f32 / u32::MAX as f32 * 2.0 - 1.0
}

/// `t` wound counter-clockwise seen from the side away from `inside`.
fn outward(t: [Vec3; 3], inside: Vec3) -> [Vec3; 3] {
    let n = (t[1] - t[0]).cross(t[2] - t[0]);
    if n.dot(t[0] + t[1] + t[2] - 3.0 * inside) < 0.0 {
        [t[0], t[2], t[1]]
    } else {
        t
    }
}

/// Coloured triangles, counter-clockwise seen from outside. Every primitive
/// is closed, so a solid's signed volume is positive.
#[derive(Clone, Debug, Default)]
struct Solid(Vec<([Vec3; 3], Rgba)>);

impl Solid {
    fn add(&mut self, other: Solid) {
        self.0.extend(other.0);
    }

    /// Adds a triangle unless it is degenerate (as at a lathe's axis).
    fn tri(&mut self, t: [Vec3; 3], col: Rgba) {
        if (t[1] - t[0]).cross(t[2] - t[0]).length_squared() > 1e-12 {
            self.0.push((t, col));
        }
    }

    /// The solid moved by `m` (a mirroring `m` keeps the faces outward).
    fn xf(mut self, m: Affine3A) -> Self {
        let flip = m.matrix3.determinant() < 0.0;
        for (t, _) in &mut self.0 {
            *t = t.map(|p| m.transform_point3(p));
            if flip {
                t.swap(1, 2);
            }
        }
        self
    }

    /// A solid of revolution about +Y with `n` sides, the first at angle
    /// `phase`. The profile is a list of (radius, height) running
    /// counter-clockwise in the (radius, height) half-plane from the axis
    /// back to the axis; segment `k` (from point `k` to `k + 1`) gets
    /// colour `col(k)`.
    fn lathe_with(
        n: usize,
        phase: f32,
        profile: &[(f32, f32)],
        col: impl Fn(usize) -> Rgba,
    ) -> Self {
        let at = |(r, y): (f32, f32), i: usize| {
            let a = phase + TAU * (i % n) as f32 / n as f32;
            v3(r * a.cos(), y, r * a.sin())
        };
        let mut s = Solid::default();
        for (k, w) in profile.windows(2).enumerate() {
            for i in 0..n {
                let [a, b, c, d] = [at(w[0], i), at(w[1], i), at(w[1], i + 1), at(w[0], i + 1)];
                s.tri([a, b, c], col(k));
                s.tri([a, c, d], col(k));
            }
        }
        s
    }

    fn lathe(n: usize, phase: f32, profile: &[(f32, f32)], col: Rgba) -> Self {
        Self::lathe_with(n, phase, profile, |_| col)
    }

    /// A capped frustum about +Y from radius `r0` at `y0` to `r1` at `y1`
    /// (a cone if `r1` is 0).
    fn frustum(n: usize, r0: f32, r1: f32, y0: f32, y1: f32, col: Rgba) -> Self {
        Self::lathe(n, 0.0, &[(0.0, y0), (r0, y0), (r1, y1), (0.0, y1)], col)
    }

    /// A capped frustum from `a` (radius `r0`) to `b` (radius `r1`).
    fn rod(a: Vec3, b: Vec3, r0: f32, r1: f32, n: usize, col: Rgba) -> Self {
        let d = b - a;
        let turn = Quat::from_rotation_arc(Vec3::Y, d.normalize());
        Self::frustum(n, r0, r1, 0.0, d.length(), col)
            .xf(Affine3A::from_rotation_translation(turn, a))
    }

    /// A convex polyhedron from polygonal faces (vertex indices in order
    /// round the face, either way), each with its colour.
    fn hull(points: &[Vec3], faces: &[(&[usize], Rgba)]) -> Self {
        let centre = points.iter().sum::<Vec3>() / points.len() as f32;
        let mut s = Solid::default();
        for (f, col) in faces {
            for k in 1..f.len() - 1 {
                s.tri(
                    outward([points[f[0]], points[f[k]], points[f[k + 1]]], centre),
                    *col,
                );
            }
        }
        s
    }

    /// An axis-aligned box.
    fn cuboid(min: Vec3, max: Vec3, col: Rgba) -> Self {
        // Corner i has bit 0 for x, bit 1 for y, bit 2 for z at max.
        let p: Vec<Vec3> = (0..8)
            .map(|i| Vec3::select(BVec3::new(i & 1 != 0, i & 2 != 0, i & 4 != 0), max, min))
            .collect();
        let faces: [&[usize]; 6] = [
            &[0, 2, 6, 4],
            &[1, 3, 7, 5],
            &[0, 1, 5, 4],
            &[2, 3, 7, 6],
            &[0, 1, 3, 2],
            &[4, 5, 7, 6],
        ];
        Self::hull(&p, &faces.map(|f| (f, col)))
    }

    /// A pitched roof on the unit footprint: eaves at y = 1 along the X
    /// sides, a ridge along X at `height` reaching `ridge` either side of
    /// the centre (0.5 for a gable, less for a hip); `ends` colours the
    /// gable or hip ends.
    fn pitched(ridge: f32, height: f32, slopes: Rgba, ends: Rgba) -> Self {
        let p = [
            v3(-0.5, 1.0, -0.5),
            v3(0.5, 1.0, -0.5),
            v3(0.5, 1.0, 0.5),
            v3(-0.5, 1.0, 0.5),
            v3(-ridge, height, 0.0),
            v3(ridge, height, 0.0),
        ];
        let faces: [(&[usize], Rgba); 5] = [
            (&[0, 1, 2, 3], slopes),
            (&[0, 1, 5, 4], slopes),
            (&[3, 2, 5, 4], slopes),
            (&[0, 3, 4], ends),
            (&[1, 2, 5], ends),
        ];
        Self::hull(&p, &faces)
    }

    /// A unit sphere (an icosahedron subdivided `subdiv` times) with its
    /// vertices pushed in or out by up to `jitter` of the radius, and facets
    /// shaded a little differently.
    fn blob(subdiv: u32, jitter: f32, seed: u32, col: Rgba) -> Self {
        let t = (1.0 + 5f32.sqrt()) / 2.0;
        let v = [
            [-1.0, t, 0.0],
            [1.0, t, 0.0],
            [-1.0, -t, 0.0],
            [1.0, -t, 0.0],
            [0.0, -1.0, t],
            [0.0, 1.0, t],
            [0.0, -1.0, -t],
            [0.0, 1.0, -t],
            [t, 0.0, -1.0],
            [t, 0.0, 1.0],
            [-t, 0.0, -1.0],
            [-t, 0.0, 1.0],
        ]
        .map(|p| Vec3::from(p).normalize());
        const FACES: [[usize; 3]; 20] = [
            [0, 11, 5],
            [0, 5, 1],
            [0, 1, 7],
            [0, 7, 10],
            [0, 10, 11],
            [1, 5, 9],
            [5, 11, 4],
            [11, 10, 2],
            [10, 7, 6],
            [7, 1, 8],
            [3, 9, 4],
            [3, 4, 2],
            [3, 2, 6],
            [3, 6, 8],
            [3, 8, 9],
            [4, 9, 5],
            [2, 4, 11],
            [6, 2, 10],
            [8, 6, 7],
            [9, 8, 1],
        ];
        let mut tris: Vec<[Vec3; 3]> = FACES
            .iter()
            .map(|f| outward(f.map(|i| v[i]), Vec3::ZERO))
            .collect();
        for _ in 0..subdiv {
            // Midpoints are computed alike from both sides of an edge.
            tris = tris
                .into_iter()
                .flat_map(|[a, b, c]| {
                    let (ab, bc, ca) = (
                        (a + b).normalize(),
                        (b + c).normalize(),
                        (c + a).normalize(),
                    );
                    [[a, ab, ca], [ab, b, bc], [ca, bc, c], [ab, bc, ca]]
                })
                .collect();
        }
        let bump = |p: Vec3| p * (1.0 + jitter * hash(p, seed));
        let mut s = Solid::default();
        for t in tris {
            let facet = shade(col, 1.0 + 0.08 * hash(t[0] + t[1] + t[2], seed ^ 0x5BD1));
            s.tri(t.map(bump), facet);
        }
        s
    }

    /// The mesh: three vertices per triangle with its face normal.
    fn into_mesh(self) -> Mesh {
        let n = self.0.len() * 3;
        let (mut positions, mut normals, mut colors) = (
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
        );
        for (t, col) in self.0 {
            let normal = (t[1] - t[0]).cross(t[2] - t[0]).normalize().to_array();
            for p in t {
                positions.push(p.to_array());
                normals.push(normal);
                colors.push(col);
            }
        }
        colored_mesh(positions, normals, colors, (0..n as u32).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bevy::mesh::Indices;
    use bevy::mesh::VertexAttributeValues;

    /// Checks a mesh's consistency and returns its bounding box and
    /// triangle count.
    fn check(m: &Mesh) -> (Vec3, Vec3, usize) {
        let Some(VertexAttributeValues::Float32x3(pos)) = m.attribute(Mesh::ATTRIBUTE_POSITION)
        else {
            panic!("positions")
        };
        let Some(VertexAttributeValues::Float32x3(nrm)) = m.attribute(Mesh::ATTRIBUTE_NORMAL)
        else {
            panic!("normals")
        };
        let Some(VertexAttributeValues::Float32x4(col)) = m.attribute(Mesh::ATTRIBUTE_COLOR) else {
            panic!("colours")
        };
        let Some(Indices::U32(idx)) = m.indices() else {
            panic!("u32 indices")
        };
        assert!(!pos.is_empty());
        assert_eq!(pos.len(), nrm.len());
        assert_eq!(pos.len(), col.len());
        assert_eq!(idx.len() % 3, 0);
        assert!(idx.iter().all(|&i| (i as usize) < pos.len()));
        assert!(col.iter().flatten().all(|c| (0.0..=1.0).contains(c)));
        assert!(col.iter().all(|c| c[3] == 1.0));
        assert!(
            nrm.iter()
                .all(|n| (Vec3::from(*n).length() - 1.0).abs() < 1e-4)
        );
        let (mut min, mut max, mut volume) = (Vec3::MAX, Vec3::MIN, 0.0);
        for t in idx.chunks(3) {
            let [a, b, c] = [0, 1, 2].map(|k| Vec3::from(pos[t[k] as usize]));
            let g = (b - a).cross(c - a);
            for &i in t {
                assert!(
                    g.dot(Vec3::from(nrm[i as usize])) > 0.0,
                    "winding disagrees with normal"
                );
            }
            volume += a.dot(b.cross(c)) / 6.0;
        }
        for p in pos {
            min = min.min(Vec3::from(*p));
            max = max.max(Vec3::from(*p));
        }
        // The parts are closed and outward-facing: positive signed volume.
        assert!(volume > 0.0, "signed volume {volume}");
        (min, max, idx.len() / 3)
    }

    /// Every face of a solid faces away from `centre`.
    fn faces_away(s: &Solid, centre: Vec3) -> bool {
        s.0.iter().all(|(t, _)| {
            (t[1] - t[0])
                .cross(t[2] - t[0])
                .dot(t[0] + t[1] + t[2] - 3.0 * centre)
                > 0.0
        })
    }

    #[test]
    fn primitives_face_outwards() {
        let c = srgb(0.5, 0.5, 0.5);
        assert!(faces_away(
            &Solid::frustum(7, 1.0, 0.5, -1.0, 2.0, c),
            v3(0.0, 0.5, 0.0)
        ));
        assert!(faces_away(
            &Solid::frustum(8, 2.0, 0.0, 0.0, 3.0, c),
            v3(0.0, 1.0, 0.0)
        ));
        assert!(faces_away(
            &Solid::cuboid(v3(-1.0, 0.0, 2.0), v3(3.0, 0.5, 2.2), c),
            v3(1.0, 0.25, 2.1)
        ));
        assert!(faces_away(
            &Solid::pitched(0.2, 1.3, c, c),
            v3(0.0, 1.1, 0.0)
        ));
        let mirrored =
            Solid::cuboid(Vec3::ZERO, Vec3::ONE, c).xf(Affine3A::from_scale(v3(-1.0, 1.0, 1.0)));
        assert!(faces_away(&mirrored, v3(-0.5, 0.5, 0.5)));
        let rod = Solid::rod(v3(1.0, 2.0, 3.0), v3(-1.0, 0.0, 4.0), 0.2, 0.1, 5, c);
        assert!(faces_away(&rod, v3(0.0, 1.0, 3.5)));
        for (subdiv, jitter) in [(0, 0.12), (0, 0.15), (1, 0.22)] {
            for seed in 0..100 {
                let b = Solid::blob(subdiv, jitter, seed, c);
                assert_eq!(b.0.len(), 20 * 4usize.pow(subdiv));
                assert!(faces_away(&b, Vec3::ZERO));
            }
        }
    }

    #[test]
    fn trees_are_sound_and_of_their_heights() {
        let heights = [(13.5, 14.5), (10.5, 11.8), (11.5, 12.5), (14.5, 15.5)];
        for (v, (lo, hi)) in heights.into_iter().enumerate() {
            let (min, max, tris) = check(&tree_mesh(v));
            assert!((lo..=hi).contains(&max.y), "tree {v} height {}", max.y);
            assert!((-0.6..=-0.4).contains(&min.y), "tree {v} base {}", min.y);
            assert!(
                min.x > -4.5 && max.x < 4.5 && min.z > -4.5 && max.z < 4.5,
                "tree {v} {min} {max}"
            );
            assert!(tris <= 400, "tree {v}: {tris} triangles");
            let again = tree_mesh(v + TREE_VARIETIES);
            assert_eq!(
                again
                    .attribute(Mesh::ATTRIBUTE_POSITION)
                    .unwrap()
                    .as_float3(),
                tree_mesh(v)
                    .attribute(Mesh::ATTRIBUTE_POSITION)
                    .unwrap()
                    .as_float3()
            );
        }
    }

    #[test]
    fn features_are_sound_and_of_their_sizes() {
        for f in Feature::ALL {
            let (min, max, tris) = check(&feature_mesh(f));
            let size = max - min;
            assert!(tris <= 400, "{f:?}: {tris} triangles");
            assert!(min.y <= 0.0 && min.y >= -0.6, "{f:?} base {}", min.y);
            let (height, width) = (max.y, size.x.max(size.z));
            let ok = match f {
                Feature::Mine => (3.5..=4.8).contains(&height) && width < 3.0,
                Feature::Boulder => (1.3..=1.8).contains(&height) && width < 3.0,
                Feature::Root => (2.0..=3.2).contains(&height) && size.x < 4.5,
                Feature::WaterHole => {
                    (0.05..=0.2).contains(&height) && (5.0..=7.0).contains(&width)
                }
                Feature::Knoll => (1.4..=1.6).contains(&height) && (7.5..=9.0).contains(&width),
                Feature::ManMade => (2.7..=3.3).contains(&height) && width < 2.0,
                Feature::Cone => (height - 0.7).abs() < 0.01 && width < 0.4,
            };
            assert!(ok, "{f:?}: {min} {max}");
        }
    }

    #[test]
    fn buildings_fit_the_unit_box() {
        for v in 0..8 {
            let (min, max, tris) = check(&building_mesh(v));
            assert!(tris <= 100, "building {v}: {tris} triangles");
            assert!(
                min.cmpge(v3(-0.5, 0.0, -0.5) - 1e-6).all()
                    && max.cmple(v3(0.5, 1.35, 0.5) + 1e-6).all(),
                "building {v}: {min} {max}"
            );
            assert!(max.y > 1.0 && (max.x - min.x) > 0.999 && (max.z - min.z) > 0.999);
        }
        // Pitched roofs rise higher than flat ones.
        assert!(check(&building_mesh(1)).1.y > 1.3 && check(&building_mesh(0)).1.y < 1.2);
    }
}
