//! Helpers for smoke runs (CI, reviewers): is a captured frame blank?

/// Whether RGBA8/BGRA8 pixel data is blank: fewer than eight distinct
/// coarse colours, or one colour covering more than 90 % of the frame (an
/// all-black first frame, a window of sky, a clear colour with nothing drawn).
pub fn is_blank(rgba: &[u8]) -> bool {
    let mut hist = std::collections::BTreeMap::new();
    let total = rgba.len() / 4;
    for p in rgba.chunks_exact(4) {
        *hist
            .entry([p[0] >> 4, p[1] >> 4, p[2] >> 4])
            .or_insert(0usize) += 1;
    }
    let top = hist.values().copied().max().unwrap_or(0);
    total == 0 || hist.len() < 8 || top * 10 > total * 9
}

#[cfg(test)]
mod tests {
    use super::is_blank;

    #[test]
    fn blank_and_busy_frames() {
        assert!(is_blank(&[]));
        assert!(is_blank(&[0u8; 4 * 1000]));
        let sky_with_speck: Vec<u8> = (0..1000u32)
            .flat_map(|i| {
                if i < 950 {
                    [150, 190, 230, 255]
                } else {
                    [(i * 16) as u8, 90, 40, 255]
                }
            })
            .collect();
        assert!(is_blank(&sky_with_speck));
        let busy: Vec<u8> = (0..1000u32)
            .flat_map(|i| [(i * 7) as u8, (i * 13) as u8, (i * 29) as u8, 255])
            .collect();
        assert!(!is_blank(&busy));
    }
}
