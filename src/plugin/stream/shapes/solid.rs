//! [`Solid`], the coloured-triangle builder every shape is made with, and
//! its small helpers (colours, placement, a point hash).

use super::colored_mesh;
use bevy::color::{ColorToComponents, LinearRgba, Srgba};
use bevy::math::{Affine3A, BVec3, Quat, Vec3};
use bevy::mesh::Mesh;
use std::f32::consts::TAU;

pub(super) type Rgba = [f32; 4];

/// Linear RGBA from sRGB components.
pub(super) fn srgb(r: f32, g: f32, b: f32) -> Rgba {
    LinearRgba::from(Srgba::rgb(r, g, b)).to_f32_array()
}

/// A colour made lighter (`f > 1`) or darker.
pub(super) fn shade(c: Rgba, f: f32) -> Rgba {
    [c[0] * f, c[1] * f, c[2] * f, c[3]].map(|x| x.min(1.0))
}

pub(super) fn v3(x: f32, y: f32, z: f32) -> Vec3 {
    Vec3::new(x, y, z)
}

/// Scale, then turn `yaw` radians about Y, then move to `at`.
pub(super) fn place(scale: Vec3, yaw: f32, at: Vec3) -> Affine3A {
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
pub(super) struct Solid(pub(super) Vec<([Vec3; 3], Rgba)>);

impl Solid {
    pub(super) fn add(&mut self, other: Solid) {
        self.0.extend(other.0);
    }

    /// Adds a triangle unless it is degenerate (as at a lathe's axis).
    pub(super) fn tri(&mut self, t: [Vec3; 3], col: Rgba) {
        if (t[1] - t[0]).cross(t[2] - t[0]).length_squared() > 1e-12 {
            self.0.push((t, col));
        }
    }

    /// The solid moved by `m` (a mirroring `m` keeps the faces outward).
    pub(super) fn xf(mut self, m: Affine3A) -> Self {
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
    pub(super) fn lathe_with(
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

    pub(super) fn lathe(n: usize, phase: f32, profile: &[(f32, f32)], col: Rgba) -> Self {
        Self::lathe_with(n, phase, profile, |_| col)
    }

    /// A capped frustum about +Y from radius `r0` at `y0` to `r1` at `y1`
    /// (a cone if `r1` is 0).
    pub(super) fn frustum(n: usize, r0: f32, r1: f32, y0: f32, y1: f32, col: Rgba) -> Self {
        Self::lathe(n, 0.0, &[(0.0, y0), (r0, y0), (r1, y1), (0.0, y1)], col)
    }

    /// A capped frustum from `a` (radius `r0`) to `b` (radius `r1`).
    pub(super) fn rod(a: Vec3, b: Vec3, r0: f32, r1: f32, n: usize, col: Rgba) -> Self {
        let d = b - a;
        let turn = Quat::from_rotation_arc(Vec3::Y, d.normalize());
        Self::frustum(n, r0, r1, 0.0, d.length(), col)
            .xf(Affine3A::from_rotation_translation(turn, a))
    }

    /// A convex polyhedron from polygonal faces (vertex indices in order
    /// round the face, either way), each with its colour.
    pub(super) fn hull(points: &[Vec3], faces: &[(&[usize], Rgba)]) -> Self {
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
    pub(super) fn cuboid(min: Vec3, max: Vec3, col: Rgba) -> Self {
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
    pub(super) fn pitched(ridge: f32, height: f32, slopes: Rgba, ends: Rgba) -> Self {
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
    pub(super) fn blob(subdiv: u32, jitter: f32, seed: u32, col: Rgba) -> Self {
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

    /// The solid as shared vertices: a triangle's corner joins a vertex at
    /// its point whose normal is within the angle of cosine `min_cos` of the
    /// triangle's (a smooth surface) and adds its normal (by area) and
    /// colour to the vertex's mean; a sharper edge keeps its own vertices.
    pub(super) fn welded(&self, min_cos: f32) -> Welded {
        // Per vertex: position, summed area normal, summed colour, faces.
        let mut verts: Vec<(Vec3, Vec3, [f32; 4], f32)> = Vec::new();
        let mut indices = Vec::with_capacity(self.0.len() * 3);
        for (t, col) in &self.0 {
            let area = (t[1] - t[0]).cross(t[2] - t[0]);
            let unit = area.normalize();
            for p in t {
                let joins = |v: &(Vec3, Vec3, [f32; 4], f32)| {
                    v.0.distance_squared(*p) < 1e-10 && v.1.normalize().dot(unit) >= min_cos
                };
                let i = match verts.iter().position(joins) {
                    Some(i) => i,
                    None => {
                        verts.push((*p, Vec3::ZERO, [0.0; 4], 0.0));
                        verts.len() - 1
                    }
                };
                let v = &mut verts[i];
                v.1 += area;
                v.2 = std::array::from_fn(|k| v.2[k] + col[k]);
                v.3 += 1.0;
                indices.push(i as u32);
            }
        }
        Welded {
            positions: verts.iter().map(|v| v.0).collect(),
            normals: verts.iter().map(|v| v.1.normalize()).collect(),
            colors: (verts.iter()).map(|v| v.2.map(|c| c / v.3)).collect(),
            indices,
        }
    }

    /// The mesh: three vertices per triangle with its face normal.
    pub(super) fn into_mesh(self) -> Mesh {
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

/// A solid's triangles on shared vertices ([`Solid::welded`]).
#[derive(Clone, Debug, Default)]
pub(super) struct Welded {
    pub(super) positions: Vec<Vec3>,
    pub(super) normals: Vec<Vec3>,
    pub(super) colors: Vec<Rgba>,
    pub(super) indices: Vec<u32>,
}

impl Welded {
    /// Adds `other` moved by `m` (normals by its inverse transpose; a
    /// mirroring `m` keeps the faces outward).
    pub(super) fn add(&mut self, other: &Welded, m: Affine3A) {
        let base = self.positions.len() as u32;
        let normal = m.matrix3.inverse().transpose();
        (self.positions).extend(other.positions.iter().map(|&p| m.transform_point3(p)));
        (self.normals).extend(other.normals.iter().map(|&n| (normal * n).normalize()));
        self.colors.extend_from_slice(&other.colors);
        let flip = m.matrix3.determinant() < 0.0;
        for t in other.indices.chunks_exact(3) {
            let t = if flip {
                [t[0], t[2], t[1]]
            } else {
                [t[0], t[1], t[2]]
            };
            self.indices.extend(t.map(|i| base + i));
        }
    }

    /// The mesh.
    pub(super) fn into_mesh(self) -> Mesh {
        let arrays = |v: Vec<Vec3>| v.iter().map(Vec3::to_array).collect();
        colored_mesh(
            arrays(self.positions),
            arrays(self.normals),
            self.colors,
            self.indices,
        )
    }
}
