//! Helpers shared by the lot benches.

use bevy_relief::city::lots::Lot;

/// An FNV-1a hash of every lot's block, outline, footprint and height, to
/// tell bit-identical output from changed output.
pub fn fingerprint(lots: &[Lot]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    let mut eat = |v: u64| {
        for b in v.to_le_bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    };
    for l in lots {
        eat(l.block as u64);
        eat(l.polygon.len() as u64);
        l.polygon.iter().for_each(|p| {
            eat(p.x.to_bits());
            eat(p.y.to_bits());
        });
        if let Some(b) = &l.building {
            eat(b.footprint.len() as u64);
            b.footprint.iter().for_each(|p| {
                eat(p.x.to_bits());
                eat(p.y.to_bits());
            });
            eat(b.height.to_bits());
        }
    }
    h
}
