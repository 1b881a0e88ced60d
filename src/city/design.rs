//! The tensor field of a planned city, designed from its site: a grid at
//! the centre (its angle from the site's hash), a radial pattern at a
//! secondary centre, polylines along the highways leaving its gates and
//! along lake shores on its rim, and the terrain's slope everywhere. A user
//! may replace the designed bases of a city ([`CityBases`]); the slope
//! always stays.

use super::City;
use super::tensor::{BasisField, TensorField};
use crate::geom::polyline_prefix;
use crate::num::hash_unit;
use crate::terrain::{ParamError, Terrain};
use glam::DVec2;
use serde::{Deserialize, Serialize};

/// A city's own basis fields, edited by hand: they replace the designed
/// ones (the terrain's slope is added to them all the same).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bevy", derive(bevy::reflect::Reflect))]
#[serde(deny_unknown_fields)]
pub struct CityBases {
    /// The city's id (its settlement cell).
    pub city: (i64, i64),
    /// Its basis fields (no heightmap: that is sampled anew).
    pub bases: Vec<BasisField>,
}

impl CityBases {
    /// Checks every basis field; the error names it (`bases[1].size`).
    pub fn validate(&self) -> Result<(), ParamError> {
        for (i, b) in self.bases.iter().enumerate() {
            b.validate().map_err(|e| e.at("bases", i))?;
        }
        Ok(())
    }
}

/// How far out a shore or highway shapes the streets, metres.
const LINE_REACH: f64 = 160.0;
/// How far a highway is followed from its gate for its field, metres.
const HIGHWAY_FIELD_LENGTH: f64 = 400.0;

/// The designed basis fields of a planned city (no heightmap).
pub fn designed_bases(city: &City, terrain: &Terrain, highways: &[Vec<DVec2>]) -> Vec<BasisField> {
    let (id, r) = (city.id, city.radius);
    let h = |salt| hash_unit(id.0, id.1, salt);
    let theta = h(31) * std::f64::consts::FRAC_PI_2;
    let mut out = vec![BasisField::grid(city.centre, 2.0 * r, 2.0, theta)];
    // The secondary centre: half way out, kept inside the footprint.
    let dir = DVec2::from_angle(h(32) * std::f64::consts::TAU);
    let second = (1..=4)
        .map(|k| city.centre + dir * r * (0.6 - 0.12 * k as f64))
        .find(|&p| city.contains(p))
        .unwrap_or(city.centre);
    out.push(BasisField::radial(second, 0.4 * r, 5.0));
    for hw in highways {
        let line = polyline_prefix(hw, HIGHWAY_FIELD_LENGTH);
        if line.len() >= 2 {
            out.push(BasisField::polyline(line, LINE_REACH, 2.0));
        }
    }
    out.extend(
        shores(city, terrain)
            .into_iter()
            .map(|line| BasisField::polyline(line, LINE_REACH, 2.0)),
    );
    out
}

/// The field a planned city's streets follow: its bases (`edited` when
/// given, else designed) plus the terrain's slope over its footprint,
/// sampled every `cell` metres and at full strength from `full_slope`.
pub fn city_field(
    city: &City,
    terrain: &Terrain,
    highways: &[Vec<DVec2>],
    edited: Option<&[BasisField]>,
    cell: f64,
    full_slope: f64,
) -> Result<TensorField, ParamError> {
    let mut field = TensorField::default();
    match edited {
        Some(bases) => bases.iter().cloned().for_each(|b| {
            field.add(b);
        }),
        None => designed_bases(city, terrain, highways)
            .into_iter()
            .for_each(|b| {
                field.add(b);
            }),
    }
    let (lo, hi) = city.bounds();
    field.add(BasisField::heightmap(terrain, lo, hi, cell, full_slope)?);
    Ok(field)
}

/// Runs of footprint vertices that stand on a lake shore (water a little
/// beyond them), as polylines.
fn shores(city: &City, terrain: &Terrain) -> Vec<Vec<DVec2>> {
    let lake = terrain.params().lake_level;
    let n = city.boundary.len();
    let wet_beyond = |p: DVec2| {
        let out = (p - city.centre).normalize_or_zero();
        [15.0, 40.0]
            .iter()
            .any(|&d| terrain.height(p.x + out.x * d, p.y + out.y * d) < lake)
    };
    let shore: Vec<bool> = city.boundary.iter().map(|&p| wet_beyond(p)).collect();
    let mut runs = Vec::new();
    // Start after a dry vertex, so no run is split across the wrap.
    let Some(start) = (0..n).find(|&i| !shore[i]) else {
        return vec![city.boundary.clone()];
    };
    let mut cur: Vec<DVec2> = Vec::new();
    for k in 1..=n {
        let i = (start + k) % n;
        if shore[i] {
            cur.push(city.boundary[i]);
        } else if !cur.is_empty() {
            runs.push(std::mem::take(&mut cur));
        }
    }
    runs.retain(|r| r.len() >= 2);
    runs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::city::{CityStyle, SettlementParams, Settlements};

    #[test]
    fn planned_cities_get_a_grid_a_radial_centre_inside_and_their_highways() {
        let t = Terrain::default();
        let s = Settlements::new(SettlementParams::default()).unwrap();
        let cities = s.cities_in(&t, DVec2::ZERO, DVec2::splat(30_000.0));
        let city = cities
            .iter()
            .find(|c| c.style == CityStyle::Planned)
            .expect("a planned city near the origin");
        let gate = city.boundary[0];
        let hw = vec![
            gate,
            gate + DVec2::new(300.0, 0.0),
            gate + DVec2::new(600.0, 50.0),
        ];
        let bases = designed_bases(city, &t, std::slice::from_ref(&hw));
        assert!(bases.len() >= 3);
        assert_eq!(bases[0].centre, city.centre);
        assert!(city.contains(bases[1].centre));
        // The same city always gets the same design; the field validates
        // and has a direction at the centre.
        assert_eq!(bases, designed_bases(city, &t, std::slice::from_ref(&hw)));
        let f = city_field(city, &t, &[hw], None, 25.0, 0.3).unwrap();
        f.validate().unwrap();
        assert!(f.major(city.centre).is_some());
        // Edited bases replace the design; the slope stays.
        let mine = [BasisField::radial(city.centre, 300.0, 2.0)];
        let g = city_field(city, &t, &[], Some(&mine), 25.0, 0.3).unwrap();
        assert_eq!(g.fields.len(), 2);
        assert_eq!(g.fields[0], mine[0]);
    }
}
