//! The ground palette, the mesh layout shared by everything we draw, and
//! the vertex lists every streamed mesh is built in.

use super::coords::to_bevy;
use crate::terrain::{BuiltKind, TerrainKind};
use bevy::asset::RenderAssetUsages;
use bevy::math::{DVec2, DVec3};
use bevy::mesh::{
    Indices, Mesh, MeshVertexAttribute, PrimitiveTopology, VertexAttributeValues, VertexFormat,
};

/// The ground colour of a kind (linear RGB), a natural palette after the
/// orienteering map's: yellow-green grass, ochre moor, green woods, darker
/// thickets, grey towns, brown mud, sandy lake beds.
pub fn kind_color(kind: TerrainKind) -> [f32; 3] {
    let srgb = match kind {
        TerrainKind::Grass => [0.56, 0.66, 0.30],
        TerrainKind::Moor => [0.66, 0.58, 0.36],
        TerrainKind::Wood => [0.27, 0.42, 0.18],
        TerrainKind::Thicket => [0.16, 0.31, 0.12],
        TerrainKind::Town => [0.58, 0.56, 0.52],
        TerrainKind::Mud => [0.42, 0.35, 0.25],
        TerrainKind::Lake => [0.60, 0.55, 0.40],
        TerrainKind::Road => [0.36, 0.35, 0.33],
        TerrainKind::Path => [0.62, 0.56, 0.44],
        TerrainKind::Stream => [0.20, 0.40, 0.55],
        TerrainKind::Marsh => [0.36, 0.46, 0.34],
        TerrainKind::Earthwork => [0.52, 0.49, 0.42],
    };
    srgb.map(srgb_to_linear)
}

/// The colour of built ground (linear RGB): carriageways as road, pads as
/// town ground, embankments grassed over, cuttings bare gravel.
pub fn built_color(kind: BuiltKind) -> [f32; 3] {
    match kind {
        BuiltKind::Carriageway => kind_color(TerrainKind::Road),
        BuiltKind::Pad => kind_color(TerrainKind::Town),
        BuiltKind::Fill => [0.50, 0.60, 0.30].map(srgb_to_linear),
        BuiltKind::Cut => kind_color(TerrainKind::Earthwork),
    }
}

/// Snow, linear RGB.
pub const SNOW: [f32; 3] = [0.88, 0.90, 0.94];

fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// Vertex colours as four bytes (linear RGBA, 0 to 255) under the id of
/// Bevy's [`Mesh::ATTRIBUTE_COLOR`]: the standard material reads them as it
/// reads Bevy's four floats (the GPU turns them back into 0..1), and a
/// vertex takes 28 bytes instead of 40. Rounding moves a channel by at
/// most 0.002 in linear light: on the darkest one in the palette (thicket
/// blue, sRGB 0.12) that is 2.4 of 255 on the screen, elsewhere less.
pub const ATTRIBUTE_COLOR_BYTES: MeshVertexAttribute = MeshVertexAttribute {
    format: VertexFormat::Unorm8x4,
    ..Mesh::ATTRIBUTE_COLOR
};

/// A linear RGBA colour (each 0..1) as the bytes of [`ATTRIBUTE_COLOR_BYTES`].
pub fn color_bytes(c: [f32; 4]) -> [u8; 4] {
    c.map(|v| (v.clamp(0.0, 1.0) * 255.0).round() as u8)
}

/// A triangle-list mesh with normals and linear RGBA vertex colours (stored
/// as [`ATTRIBUTE_COLOR_BYTES`]): the layout of every mesh the plugin builds
/// (ground, shapes, streams). The lists are trimmed to their length: a mesh
/// keeps what it is given, and builders grow them by doubling.
pub fn colored_mesh(
    mut positions: Vec<[f32; 3]>,
    mut normals: Vec<[f32; 3]>,
    colors: Vec<[f32; 4]>,
    mut indices: Vec<u32>,
) -> Mesh {
    positions.shrink_to_fit();
    normals.shrink_to_fit();
    indices.shrink_to_fit();
    let colors: Vec<[u8; 4]> = colors.into_iter().map(color_bytes).collect();
    Mesh::new(
        PrimitiveTopology::TriangleList,
        RenderAssetUsages::default(),
    )
    .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, positions)
    .with_inserted_attribute(Mesh::ATTRIBUTE_NORMAL, normals)
    .with_inserted_attribute(
        ATTRIBUTE_COLOR_BYTES,
        VertexAttributeValues::Unorm8x4(colors),
    )
    .with_inserted_indices(Indices::U32(indices))
}

/// `mesh` for the renderer alone: once uploaded, its data leave the main
/// world (the streamed meshes: chunks, ribbons, structures, buildings; a
/// world without a renderer keeps them).
pub fn render_only(mut mesh: Mesh) -> Mesh {
    mesh.asset_usage = RenderAssetUsages::RENDER_WORLD;
    mesh
}

/// The vertex lists of a mesh under construction, in Bevy's axes (the
/// ground chunks, road ribbons, buildings and structures all build one):
/// [`into_mesh`](Self::into_mesh) makes the [`colored_mesh`].
#[derive(Clone, Debug, Default)]
pub struct MeshLists {
    /// Vertex positions.
    pub positions: Vec<[f32; 3]>,
    /// Vertex normals.
    pub normals: Vec<[f32; 3]>,
    /// Vertex colours (linear RGBA).
    pub colors: Vec<[f32; 4]>,
    /// Triangle indices.
    pub indices: Vec<u32>,
}

impl MeshLists {
    /// Adds a planar convex polygon (core axes, relative to the mesh's
    /// anchor) as a fan, flat-shaded, wound so that its normal points along
    /// `hint`.
    pub fn face(&mut self, poly: &[DVec3], hint: DVec3, color: [f32; 4]) {
        let n = newell(poly);
        let (n, flip) = if n.dot(hint) < 0.0 {
            (-n, true)
        } else {
            (n, false)
        };
        let normal = to_bevy(n, DVec2::ZERO).to_array();
        let base = self.positions.len() as u32;
        for &p in poly {
            self.positions.push(to_bevy(p, DVec2::ZERO).to_array());
            self.normals.push(normal);
            self.colors.push(color);
        }
        for k in 1..poly.len().saturating_sub(1) as u32 {
            let (b, c) = if flip { (k + 1, k) } else { (k, k + 1) };
            self.indices.extend([base, base + b, base + c]);
        }
    }

    /// Adds triangles (index triples into `points`) of a horizontal polygon
    /// at height `z`, facing up.
    pub fn flat(&mut self, points: &[DVec2], tris: &[usize], z: f64, color: [f32; 4]) {
        for t in tris.chunks_exact(3) {
            let tri = [t[0], t[1], t[2]].map(|i| points[i].extend(z));
            self.face(&tri, DVec3::Z, color);
        }
    }

    /// Whether nothing was added.
    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }

    /// Gives back the lists' spare capacity (for lists kept a while before
    /// they become a mesh).
    pub fn trim(&mut self) {
        self.positions.shrink_to_fit();
        self.normals.shrink_to_fit();
        self.colors.shrink_to_fit();
        self.indices.shrink_to_fit();
    }

    /// The lowest and highest vertex heights (Bevy Y), if any.
    #[cfg(test)]
    pub fn height_range(&self) -> Option<(f32, f32)> {
        let ys = self.positions.iter().map(|p| p[1]);
        let lo = ys.clone().fold(f32::INFINITY, f32::min);
        let hi = ys.fold(f32::NEG_INFINITY, f32::max);
        (lo <= hi).then_some((lo, hi))
    }

    /// Asserts that every triangle's winding agrees with its stored normal.
    #[cfg(test)]
    pub fn check_windings(&self) {
        for t in self.indices.chunks_exact(3) {
            let p = [t[0], t[1], t[2]].map(|i| bevy::math::Vec3::from(self.positions[i as usize]));
            let n = (p[1] - p[0]).cross(p[2] - p[0]);
            let stored = bevy::math::Vec3::from(self.normals[t[0] as usize]);
            assert!(n.dot(stored) > 0.0, "{p:?} against {stored}");
        }
    }

    /// Vertices so far.
    #[cfg(test)]
    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }

    /// The finished mesh.
    pub fn into_mesh(self) -> Mesh {
        colored_mesh(self.positions, self.normals, self.colors, self.indices)
    }
}

/// The normal of a polygon (Newell's method), normalised.
fn newell(poly: &[DVec3]) -> DVec3 {
    let mut n = DVec3::ZERO;
    for (i, a) in poly.iter().enumerate() {
        let b = poly[(i + 1) % poly.len()];
        n += DVec3::new(
            (a.y - b.y) * (a.z + b.z),
            (a.z - b.z) * (a.x + b.x),
            (a.x - b.x) * (a.y + b.y),
        );
    }
    n.normalize_or_zero()
}

/// Linear RGBA from sRGB components.
pub fn linear(c: [f32; 3]) -> [f32; 4] {
    let [r, g, b] = c.map(srgb_to_linear);
    [r, g, b, 1.0]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_go_to_the_gpu_as_four_bytes_under_bevy_s_colour_attribute() {
        let m = colored_mesh(
            vec![[0.0; 3]; 3],
            vec![[0.0, 1.0, 0.0]; 3],
            vec![
                [0.0137, 0.5, 1.0, 1.0],
                [-0.1, 2.0, 0.25, 0.0],
                [0.2, 0.4, 0.6, 1.0],
            ],
            vec![0, 1, 2],
        );
        // The standard material finds its vertex colours by this id.
        assert!(m.contains_attribute(Mesh::ATTRIBUTE_COLOR));
        let Some(VertexAttributeValues::Unorm8x4(c)) = m.attribute(Mesh::ATTRIBUTE_COLOR) else {
            panic!("colours as bytes")
        };
        // Rounded to the nearest step, clamped to 0..1.
        assert_eq!(c[0], [3, 128, 255, 255]);
        assert_eq!(c[1], [0, 255, 64, 0]);
        assert_eq!(c[2], [51, 102, 153, 255]);
        // Position and normal 12 bytes each, the colour 4.
        assert_eq!(m.get_vertex_size(), 28);
    }
}
