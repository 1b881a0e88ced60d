//! Per-search caches over a window of cells.

/// Cells per page side (log₂): pages of 8 × 8 cells.
const PAGE_BITS: i64 = 3;
const PAGE: i64 = 1 << PAGE_BITS;

/// A window of cells with `per_cell` records each. A small window is one
/// flat array (row by row); a larger one is allocated a page at a time,
/// when a cell of the page is first touched, and only its page directory
/// is dense (one `u32` per 64 cells).
#[derive(Clone, Debug)]
pub(crate) struct Paged<T: Copy> {
    x0: i64,
    y0: i64,
    /// Flat: the window's width in cells; paged: 0.
    stride: i64,
    /// Paged: the directory's width and height in pages.
    w: i64,
    h: i64,
    dir: Vec<u32>,
    /// Flat: cell `(x, y)`'s records from `((y − y0)·stride + x − x0) ·
    /// per_cell`; paged: page `k` holds `PAGE² · per_cell` records from
    /// `k · PAGE² · per_cell`.
    pub data: Vec<T>,
    per_cell: usize,
    fill: T,
}

/// Largest flat window, bytes.
const FLAT_BYTES: usize = 4 << 20;

impl<T: Copy> Paged<T> {
    /// A window `x0..=x1` × `y0..=y1` with `per_cell` records per cell.
    pub fn new(x0: i64, x1: i64, y0: i64, y1: i64, per_cell: usize, fill: T) -> Self {
        let cells = ((x1 - x0 + 1) as u128) * ((y1 - y0 + 1) as u128);
        let bytes = cells * (per_cell * std::mem::size_of::<T>()) as u128;
        if bytes <= FLAT_BYTES as u128 {
            return Self {
                x0,
                y0,
                stride: x1 - x0 + 1,
                w: 0,
                h: 0,
                dir: Vec::new(),
                data: vec![fill; cells as usize * per_cell],
                per_cell,
                fill,
            };
        }
        let w = ((x1 - x0) >> PAGE_BITS) + 1;
        let h = ((y1 - y0) >> PAGE_BITS) + 1;
        // Room for the whole window up front (within reason): pages are
        // then never moved, and untouched room costs address space only.
        let room = ((w * h) as usize * (per_cell << (2 * PAGE_BITS))).min(1 << 21);
        Self {
            x0,
            y0,
            stride: 0,
            w,
            h,
            dir: vec![u32::MAX; (w * h) as usize],
            data: Vec::with_capacity(room),
            per_cell,
            fill,
        }
    }

    /// The window's width when it is flat (a cell `dx, dy` away from
    /// another then has its records `(dy·width + dx) · per_cell` further).
    pub fn stride(&self) -> Option<i64> {
        (self.stride > 0).then_some(self.stride)
    }

    /// The index in `data` of cell `(x, y)`'s first record, allocating its
    /// page if needed. The cell must lie in the window.
    #[inline(always)]
    pub fn slot(&mut self, x: i64, y: i64) -> usize {
        let (dx, dy) = (x - self.x0, y - self.y0);
        if self.stride > 0 {
            debug_assert!(dx >= 0 && dy >= 0 && dx < self.stride);
            return (dy * self.stride + dx) as usize * self.per_cell;
        }
        let (px, py) = (dx >> PAGE_BITS, dy >> PAGE_BITS);
        debug_assert!(px >= 0 && py >= 0 && px < self.w && py < self.h);
        let d = (py * self.w + px) as usize;
        let mut page = self.dir[d];
        if page == u32::MAX {
            page = self.allocate(d);
        }
        let local = ((dy & (PAGE - 1)) << PAGE_BITS | (dx & (PAGE - 1))) as usize;
        (page as usize * (PAGE * PAGE) as usize + local) * self.per_cell
    }

    /// Allocates the page at directory entry `d`.
    #[cold]
    #[inline(never)]
    fn allocate(&mut self, d: usize) -> u32 {
        let page = (self.data.len() / (self.per_cell << (2 * PAGE_BITS))) as u32;
        self.dir[d] = page;
        let n = self.data.len() + (self.per_cell << (2 * PAGE_BITS));
        self.data.resize(n, self.fill);
        page
    }
}
