//! Meshes built from the terrain: ground patches coloured by kind, water.

use super::coords::{dir_to_bevy, to_bevy};
use crate::terrain::{Terrain, TerrainKind};
use bevy::asset::RenderAssetUsages;
use bevy::math::{DVec2, DVec3};
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
    };
    srgb.map(srgb_to_linear)
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

/// A square ground patch of `n × n` vertices `step` metres apart with its
/// south-west corner at `min`: positions relative to `origin`, smooth
/// normals from the height field, vertex colours by terrain kind.
pub fn ground_mesh(terrain: &Terrain, min: DVec2, step: f64, n: usize, origin: DVec2) -> Mesh {
    let n = n.max(2);
    // Heights with a one-sample border for central-difference normals.
    let mut h = Vec::new();
    terrain
        .heights_grid(min.x - step, min.y - step, step, n + 2, n + 2, &mut h)
        .expect("patch sizes are small");
    let at = |i: usize, j: usize| h[(j + 1) * (n + 2) + (i + 1)];
    let mut positions = Vec::with_capacity(n * n);
    let mut normals = Vec::with_capacity(n * n);
    let mut colors = Vec::with_capacity(n * n);
    for j in 0..n {
        for i in 0..n {
            let (x, y) = (min.x + i as f64 * step, min.y + j as f64 * step);
            let z = at(i, j);
            positions.push(to_bevy(DVec3::new(x, y, z), origin).to_array());
            let dzdx = (h[(j + 1) * (n + 2) + i + 2] - h[(j + 1) * (n + 2) + i]) / (2.0 * step);
            let dzdy = (h[(j + 2) * (n + 2) + i + 1] - h[j * (n + 2) + i + 1]) / (2.0 * step);
            normals.push(dir_to_bevy(DVec3::new(-dzdx, -dzdy, 1.0).normalize()).to_array());
            let t = terrain.terra(x, y);
            let c = if t.snow { SNOW } else { kind_color(t.kind) };
            colors.push([c[0], c[1], c[2], 1.0]);
        }
    }
    let mut indices = Vec::with_capacity((n - 1) * (n - 1) * 6);
    for j in 0..n as u32 - 1 {
        for i in 0..n as u32 - 1 {
            let v00 = j * n as u32 + i;
            let (v10, v01, v11) = (v00 + 1, v00 + n as u32, v00 + n as u32 + 1);
            // Counter-clockwise seen from above (+Y).
            indices.extend_from_slice(&[v00, v10, v11, v00, v11, v01]);
        }
    }
    Mesh::new(
        PrimitiveTopology::TriangleList,
        RenderAssetUsages::default(),
    )
    .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, positions)
    .with_inserted_attribute(Mesh::ATTRIBUTE_NORMAL, normals)
    .with_inserted_attribute(Mesh::ATTRIBUTE_COLOR, colors)
    .with_inserted_indices(Indices::U32(indices))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bevy::mesh::VertexAttributeValues;

    #[test]
    fn ground_mesh_follows_the_height_field() {
        let t = Terrain::default();
        let origin = DVec2::new(19000.0, 1260.0);
        let m = ground_mesh(&t, DVec2::new(18990.0, 1250.0), 2.0, 9, origin);
        let Some(VertexAttributeValues::Float32x3(pos)) = m.attribute(Mesh::ATTRIBUTE_POSITION)
        else {
            panic!("positions")
        };
        assert_eq!(pos.len(), 81);
        // Vertex (3, 4) is core (18996, 1258).
        let p = pos[4 * 9 + 3];
        assert_eq!(p, [-4.0, t.height(18996.0, 1258.0) as f32, 2.0]);
        let Some(VertexAttributeValues::Float32x3(nrm)) = m.attribute(Mesh::ATTRIBUTE_NORMAL)
        else {
            panic!("normals")
        };
        assert!(nrm.iter().all(|n| n[1] > 0.3 && (n[0] * n[0] + n[1] * n[1] + n[2] * n[2] - 1.0).abs() < 1e-5));
        assert_eq!(m.indices().unwrap().len(), 8 * 8 * 6);
    }
}
