//! Why a map, a sketch or a PNG could not be made.

use super::MAX_MAP_PIXELS;
use crate::terrain::GridError;
use glam::DVec2;
use thiserror::Error;

/// Why a map, a sketch or a PNG of one could not be made: each variant
/// names what to change.
#[derive(Debug, Error)]
pub enum MapError {
    /// The scale is not finite or outside `(0, 1000]` metres per pixel.
    #[error("metres_per_pixel: {0} is outside (0, 1000]")]
    Scale(f64),
    /// The contour interval is not finite or not positive.
    #[error("contour_interval: {0} must be finite and above 0")]
    ContourInterval(f64),
    /// The map's centre is not finite.
    #[error("centre: {0} is not finite")]
    Centre(DVec2),
    /// The image has no pixels, more than [`MAX_MAP_PIXELS`], or a side
    /// beyond what PNG can hold.
    #[error(
        "image size {width} × {height} must be 1 ..= {MAX_MAP_PIXELS} pixels: change width or height"
    )]
    Size {
        /// Width in pixels.
        width: usize,
        /// Height in pixels.
        height: usize,
    },
    /// A sketch's world rectangle is empty or not finite.
    #[error("sketch area {min} .. {max} is empty or not finite")]
    SketchArea {
        /// Its lowest corner.
        min: DVec2,
        /// Its highest corner.
        max: DVec2,
    },
    /// An image's pixel data is not `width × height × 4` bytes.
    #[error("rgba: {len} bytes where width × height × 4 is {expected}")]
    PixelData {
        /// Bytes expected.
        expected: usize,
        /// Bytes given.
        len: usize,
    },
    /// The heights for the contours were refused.
    #[error("contour heights: {0}")]
    Heights(#[from] GridError),
    /// The PNG encoder failed.
    #[error("PNG encoding: {0}")]
    Png(#[from] png::EncodingError),
}

impl MapError {
    /// [`MapError::Size`] unless `width × height` is 1 ..= [`MAX_MAP_PIXELS`]
    /// (so each side also fits PNG's `u32`).
    pub(super) fn check_size(width: usize, height: usize) -> Result<(), MapError> {
        if width == 0 || height == 0 || width.saturating_mul(height) > MAX_MAP_PIXELS {
            return Err(MapError::Size { width, height });
        }
        Ok(())
    }
}

/// The message, for callers whose errors are strings (as the examples').
impl From<MapError> for String {
    fn from(e: MapError) -> String {
        e.to_string()
    }
}
