//! The ground palette and the mesh layout shared by everything we draw.

use crate::terrain::{BuiltKind, TerrainKind};
use bevy::asset::RenderAssetUsages;
use bevy::mesh::{Indices, Mesh, PrimitiveTopology};

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

/// A triangle-list mesh with normals and linear RGBA vertex colours: the
/// layout of every mesh the plugin builds (ground, shapes, streams). The
/// lists are trimmed to their length: a mesh keeps what it is given, and
/// builders grow them by doubling.
pub fn colored_mesh(
    mut positions: Vec<[f32; 3]>,
    mut normals: Vec<[f32; 3]>,
    mut colors: Vec<[f32; 4]>,
    mut indices: Vec<u32>,
) -> Mesh {
    positions.shrink_to_fit();
    normals.shrink_to_fit();
    colors.shrink_to_fit();
    indices.shrink_to_fit();
    Mesh::new(
        PrimitiveTopology::TriangleList,
        RenderAssetUsages::default(),
    )
    .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, positions)
    .with_inserted_attribute(Mesh::ATTRIBUTE_NORMAL, normals)
    .with_inserted_attribute(Mesh::ATTRIBUTE_COLOR, colors)
    .with_inserted_indices(Indices::U32(indices))
}

/// `mesh` for the renderer alone: once uploaded, its data leave the main
/// world (the streamed meshes: chunks, ribbons, structures, buildings; a
/// world without a renderer keeps them).
pub fn render_only(mut mesh: Mesh) -> Mesh {
    mesh.asset_usage = RenderAssetUsages::RENDER_WORLD;
    mesh
}
