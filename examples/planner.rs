//! The road planners' settings side by side, as in Löbker (2013) chapter 8:
//! one pair of end points on the reference terrain, one row per planner
//! (sequential, A* 16-connexity), one column per setting (neutral, distance,
//! slope, smoothness, dither, uncertainty), each panel a shaded-relief map
//! with the road. Also prints a table of the roads' figures.
//!
//! `cargo run --release --no-default-features --example planner -- --out planner.png`
//!
//! Options: `--from X,Y --to X,Y` (metres; both dry), `--size PX` per panel.
//! Core only: no Bevy.

use bevy_relief::roads::planner::{
    AStarPlanner, PlannedRoad, PlannerParams, RoadPlanner, SequentialPlanner,
};
use bevy_relief::terrain::Terrain;
use glam::DVec2;
use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("planner: {e}");
            ExitCode::from(2)
        }
    }
}

/// Parses `X,Y`.
fn point(s: &str) -> Result<DVec2, String> {
    let (x, y) = s.split_once(',').ok_or(format!("{s}: expected X,Y"))?;
    let f = |v: &str| v.trim().parse::<f64>().map_err(|e| format!("{s}: {e}"));
    Ok(DVec2::new(f(x)?, f(y)?))
}

/// The columns: a name and how the setting changes the neutral parameters.
fn settings() -> Vec<(&'static str, PlannerParams)> {
    let neutral = PlannerParams::default();
    let with = |f: fn(&mut PlannerParams)| {
        let mut p = neutral.clone();
        f(&mut p);
        p
    };
    vec![
        ("NEUTRAL", neutral.clone()),
        ("DISTANCE X2", with(|p| p.distance_factor = 2.0)),
        ("SLOPE 5", with(|p| p.weights.slope = 5.0)),
        ("SMOOTH 10", with(|p| p.weights.smoothness = 10.0)),
        ("DITHER 20", with(|p| p.weights.dither = 20.0)),
        ("UNCERT. 0.5", with(|p| p.weights.uncertainty = 0.5)),
    ]
}

fn run() -> Result<(), String> {
    let (mut out, mut size) = ("planner.png".to_string(), 360usize);
    let (mut from, mut to) = (DVec2::new(8000.0, 3000.0), DVec2::new(4200.0, 4300.0));
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--out" => out = val()?,
            "--from" => from = point(&val()?)?,
            "--to" => to = point(&val()?)?,
            "--size" => size = val()?.parse().map_err(|e| format!("--size: {e}"))?,
            _ => return Err(format!("unknown argument {a}")),
        }
    }
    if !(64..=2000).contains(&size) {
        return Err("--size must be 64..=2000".into());
    }
    let terrain = Terrain::default();

    // The window: a square around both end points with a margin.
    let centre = (from + to) / 2.0;
    let half = (to - from).abs().max_element() / 2.0 + 0.2 * from.distance(to) + 150.0;
    let mpp = 2.0 * half / size as f64; // metres per pixel
    let relief = Relief::new(&terrain, centre - DVec2::splat(half), mpp, size)?;

    let planners: [(&str, &dyn RoadPlanner); 2] =
        [("SEQUENTIAL", &SequentialPlanner), ("A* 16", &AStarPlanner)];
    let columns = settings();
    let scale = if size >= 360 { 2 } else { 1 }; // font dots per pixel
    let strip = 2 * (8 * scale) + 3 * scale + 4; // label strip under a panel
    let gap = 4;
    let head = 8 * scale + 8; // title line over the grid
    let (pw, ph) = (size + gap, size + strip + gap);
    let mut img = Image::new(columns.len() * pw + gap, head + planners.len() * ph + gap);
    img.fill([40, 40, 44]);
    let header = format!(
        "ROAD PLANNERS (LOBKER 2013 CH. 8) ON TERRAIN::DEFAULT: ({:.0},{:.0}) TO ({:.0},{:.0}), \
         {:.2} KM DIRECT; EACH PANEL {:.1} KM WIDE, NORTH UP",
        from.x,
        from.y,
        to.x,
        to.y,
        from.distance(to) / 1e3,
        2.0 * half / 1e3
    );
    img.text(gap + 2, 5, &header, scale, [235, 235, 235]);

    println!(
        "from ({:.0}, {:.0}) to ({:.0}, {:.0}): {:.0} m direct, {:.1} m/px",
        from.x,
        from.y,
        to.x,
        to.y,
        from.distance(to),
        mpp
    );
    println!(
        "{:<11} {:<14} {:>8} {:>6} {:>6} {:>8} {:>10} {:>9}",
        "planner", "setting", "length m", "mean%", "max%", "turn deg", "cost", "time ms"
    );
    for (row, &(pname, planner)) in planners.iter().enumerate() {
        for (col, (sname, params)) in columns.iter().enumerate() {
            let (x0, y0) = (gap + col * pw, head + row * ph);
            relief.draw(&mut img, x0, y0);
            // Best of three runs, so a stray scheduler hiccup does not count.
            let mut best = f64::INFINITY;
            let mut road = Err(String::new());
            for _ in 0..3 {
                let t = Instant::now();
                road = planner
                    .plan(&terrain, from, to, params)
                    .map_err(|e| e.to_string());
                best = best.min(t.elapsed().as_secs_f64() * 1e3);
            }
            // A* has no random picks: uncertainty leaves its road as neutral's.
            let ignored = pname.starts_with("A*") && params.weights.uncertainty > 0.0;
            let title = match ignored {
                true => format!("{pname}: {sname} IGNORED"),
                false => format!("{pname}: {sname}"),
            };
            let stats = match &road {
                Ok(r) => {
                    let (mean, max) = grades(&terrain, r);
                    let turn = turning(&r.points).to_degrees();
                    println!(
                        "{pname:<11} {sname:<14} {:>8.0} {:>6.1} {:>6.1} {:>8.0} {:>10.1} {:>9.2}",
                        r.length(),
                        mean * 100.0,
                        max * 100.0,
                        turn,
                        r.cost,
                        best
                    );
                    let line = if r.smoothed.is_empty() {
                        &r.points
                    } else {
                        &r.smoothed
                    };
                    let colour = if row == 0 {
                        [230, 40, 30]
                    } else {
                        [200, 20, 200]
                    };
                    relief.polyline(&mut img, x0, y0, line, scale + 2, [20, 20, 20]);
                    relief.polyline(&mut img, x0, y0, line, scale, colour);
                    format!(
                        "{:.2} KM  COST {:.0}  {:.1} MS",
                        r.length() / 1e3,
                        r.cost,
                        best
                    )
                }
                Err(e) => {
                    println!("{pname:<11} {sname:<14} failed: {e}");
                    "NO ROAD".to_string()
                }
            };
            for p in [from, to] {
                let (px, py) = relief.pixel(p);
                img.disc(
                    x0 as f64 + px,
                    y0 as f64 + py,
                    3.0 * scale as f64,
                    [20, 20, 20],
                );
                img.disc(
                    x0 as f64 + px,
                    y0 as f64 + py,
                    2.0 * scale as f64,
                    [255, 255, 255],
                );
            }
            let ty = y0 + size + 3;
            img.rect(x0, y0 + size, size, strip, [250, 248, 240]);
            let fit = |s: &str| s.chars().take((size - 8) / (6 * scale)).collect::<String>();
            img.text(x0 + 4, ty, &fit(&title), scale, [20, 20, 20]);
            img.text(x0 + 4, ty + 11 * scale, &fit(&stats), scale, [70, 70, 70]);
        }
    }
    println!(
        "grades: over 20 m of arc on the raw terrain; cost: each setting's own weighted \
         cost (compare within a column); time: best of 3 runs"
    );
    img.save(&out)?;
    println!("wrote {out} ({} x {} px)", img.w, img.h);
    Ok(())
}

/// Mean and largest grade, over 20 m of arc at a time.
fn grades(t: &Terrain, road: &PlannedRoad) -> (f64, f64) {
    const ARC: f64 = 20.0;
    let (mut sum, mut max, mut n) = (0.0, 0.0f64, 0);
    let mut prev = t.height(road.points[0].x, road.points[0].y);
    let mut run = 0.0; // arc length walked since the last sample
    for w in road.points.windows(2) {
        let len = w[0].distance(w[1]);
        let mut s = ARC - run;
        while s <= len {
            let p = w[0].lerp(w[1], s / len);
            let h = t.height(p.x, p.y);
            let g = ((h - prev) / ARC).abs();
            (sum, max, n, prev) = (sum + g, max.max(g), n + 1, h);
            s += ARC;
        }
        run = (run + len) % ARC;
    }
    (sum / n.max(1) as f64, max)
}

/// Summed absolute turning at the road's vertices, radians.
fn turning(points: &[DVec2]) -> f64 {
    points
        .windows(3)
        .map(|w| (w[1] - w[0]).angle_to(w[2] - w[1]).abs())
        .sum()
}

/// The shaded relief of the terrain window, computed once, drawn per panel.
struct Relief {
    size: usize,
    origin: DVec2, // world position of the bottom-left pixel
    mpp: f64,
    rgb: Vec<[u8; 3]>, // rows from the top (north)
}

impl Relief {
    fn new(terrain: &Terrain, origin: DVec2, mpp: f64, size: usize) -> Result<Self, String> {
        // The terrain has ridges a few metres apart, far finer than a pixel:
        // average SS × SS samples per pixel (and one pixel more each way,
        // for the gradient at the edges) so the landforms show, not aliasing.
        const SS: usize = 4;
        let n = size + 2;
        let mut fine = Vec::new();
        let o = origin - DVec2::splat(mpp) + DVec2::splat(mpp / SS as f64 * 0.5);
        terrain
            .heights_grid(o.x, o.y, mpp / SS as f64, n * SS, n * SS, &mut fine)
            .map_err(|e| e.to_string())?;
        let lake = terrain.params().lake_level;
        // Mean height and wet fraction per pixel; rows from the south.
        let (mut h, mut wet) = (vec![0.0; n * n], vec![0.0; n * n]);
        for (k, &z) in fine.iter().enumerate() {
            let (i, j) = (k % (n * SS) / SS, k / (n * SS) / SS);
            h[j * n + i] += z / (SS * SS) as f64;
            wet[j * n + i] += f64::from(u8::from(z < lake)) / (SS * SS) as f64;
        }
        let at = |i: usize, j: usize| h[j * n + i];
        let (lo, hi) = h
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
                (a.min(v), b.max(v))
            });
        let lo = lo.max(lake);
        let light = glam::DVec3::new(-1.0, 1.0, 1.4).normalize(); // from the NW
        let mut rgb = vec![[0u8; 3]; size * size];
        for r in 0..size {
            let j = size - r; // grid row (y grows north), +1 for the border
            for c in 0..size {
                let i = c + 1;
                let z = at(i, j);
                // Hillshade from the gradient (central differences).
                let dx = (at(i + 1, j) - at(i - 1, j)) / (2.0 * mpp);
                let dy = (at(i, j + 1) - at(i, j - 1)) / (2.0 * mpp);
                let normal = glam::DVec3::new(-dx, -dy, 1.0).normalize();
                let shade = (normal.dot(light) / light.z).clamp(0.0, 1.2);
                let tint = hypsometric((z - lo) / (hi - lo).max(1.0));
                let land = tint.map(|v| (v as f64 * (0.6 + 0.4 * shade)).min(255.0) as u8);
                rgb[r * size + c] = mix(land, [110, 160, 215], wet[j * n + i]);
            }
        }
        Ok(Self {
            size,
            origin,
            mpp,
            rgb,
        })
    }

    /// Pixel position (column, row) of a world point, from the panel's corner.
    fn pixel(&self, p: DVec2) -> (f64, f64) {
        let q = (p - self.origin) / self.mpp;
        (q.x + 0.5, self.size as f64 - q.y - 0.5)
    }

    fn draw(&self, img: &mut Image, x0: usize, y0: usize) {
        for r in 0..self.size {
            for c in 0..self.size {
                img.set(x0 + c, y0 + r, self.rgb[r * self.size + c]);
            }
        }
    }

    /// A thick line through world points, clipped to the panel.
    fn polyline(&self, img: &mut Image, x0: usize, y0: usize, pts: &[DVec2], r: usize, c: [u8; 3]) {
        let clip = (x0, y0, self.size);
        for w in pts.windows(2) {
            let (a, b) = (self.pixel(w[0]), self.pixel(w[1]));
            let n = ((b.0 - a.0).hypot(b.1 - a.1) * 2.0).ceil().max(1.0) as usize;
            for k in 0..=n {
                let t = k as f64 / n as f64;
                let (x, y) = (a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t);
                img.disc_in(x0 as f64 + x, y0 as f64 + y, r as f64 * 0.5 + 0.5, c, clip);
            }
        }
    }
}

/// Low green, through straw and brown, to pale grey on the tops.
fn hypsometric(t: f64) -> [u8; 3] {
    const STOPS: [[u8; 3]; 5] = [
        [120, 170, 100],
        [185, 200, 125],
        [225, 205, 150],
        [185, 150, 115],
        [240, 235, 230],
    ];
    let s = t.clamp(0.0, 1.0) * (STOPS.len() - 1) as f64;
    let k = (s as usize).min(STOPS.len() - 2);
    mix(STOPS[k], STOPS[k + 1], s - k as f64)
}

fn mix(a: [u8; 3], b: [u8; 3], t: f64) -> [u8; 3] {
    [0, 1, 2].map(|i| (a[i] as f64 + (b[i] as f64 - a[i] as f64) * t).round() as u8)
}

/// An RGB8 image with the few drawing calls the panels need.
struct Image {
    w: usize,
    h: usize,
    rgb: Vec<u8>,
}

impl Image {
    fn new(w: usize, h: usize) -> Self {
        Self {
            w,
            h,
            rgb: vec![0; w * h * 3],
        }
    }

    fn fill(&mut self, c: [u8; 3]) {
        self.rect(0, 0, self.w, self.h, c);
    }

    fn set(&mut self, x: usize, y: usize, c: [u8; 3]) {
        if x < self.w && y < self.h {
            let i = (y * self.w + x) * 3;
            self.rgb[i..i + 3].copy_from_slice(&c);
        }
    }

    fn rect(&mut self, x: usize, y: usize, w: usize, h: usize, c: [u8; 3]) {
        for yy in y..y + h {
            for xx in x..x + w {
                self.set(xx, yy, c);
            }
        }
    }

    fn disc(&mut self, cx: f64, cy: f64, r: f64, c: [u8; 3]) {
        self.disc_in(cx, cy, r, c, (0, 0, self.w.max(self.h)));
    }

    /// A filled disc, only inside the square `(x, y, size)`.
    fn disc_in(&mut self, cx: f64, cy: f64, r: f64, c: [u8; 3], clip: (usize, usize, usize)) {
        let (x0, y0, s) = (clip.0 as f64, clip.1 as f64, clip.2 as f64);
        let (xa, xb) = ((cx - r).floor().max(x0), (cx + r).ceil().min(x0 + s - 1.0));
        let (ya, yb) = ((cy - r).floor().max(y0), (cy + r).ceil().min(y0 + s - 1.0));
        let (mut y, r2) = (ya, r * r);
        while y <= yb {
            let mut x = xa;
            while x <= xb {
                if (x + 0.5 - cx).powi(2) + (y + 0.5 - cy).powi(2) <= r2 {
                    self.set(x as usize, y as usize, c);
                }
                x += 1.0;
            }
            y += 1.0;
        }
    }

    /// Text in the 5 × 7 font below, `scale` pixels per dot.
    fn text(&mut self, x: usize, y: usize, s: &str, scale: usize, c: [u8; 3]) {
        for (k, ch) in s.chars().enumerate() {
            let rows = glyph(ch.to_ascii_uppercase());
            for (r, bits) in rows.iter().enumerate() {
                for col in 0..5 {
                    if bits & (0x10 >> col) != 0 {
                        let (px, py) = (x + (k * 6 + col) * scale, y + r * scale);
                        self.rect(px, py, scale, scale, c);
                    }
                }
            }
        }
    }

    fn save(&self, path: &str) -> Result<(), String> {
        let file = std::fs::File::create(path).map_err(|e| format!("{path}: {e}"))?;
        let mut enc =
            png::Encoder::new(std::io::BufWriter::new(file), self.w as u32, self.h as u32);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut w = enc.write_header().map_err(|e| e.to_string())?;
        w.write_image_data(&self.rgb).map_err(|e| e.to_string())?;
        w.finish().map_err(|e| e.to_string())
    }
}

/// A 5 × 7 font (after the HD44780's): seven rows, top first, bit 4 the
/// left column. Upper case, digits and a little punctuation; others blank.
fn glyph(c: char) -> [u8; 7] {
    match c {
        'A' => [0x0E, 0x11, 0x11, 0x11, 0x1F, 0x11, 0x11],
        'B' => [0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E],
        'C' => [0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E],
        'D' => [0x1C, 0x12, 0x11, 0x11, 0x11, 0x12, 0x1C],
        'E' => [0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F],
        'F' => [0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10],
        'G' => [0x0E, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0F],
        'H' => [0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11],
        'I' => [0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E],
        'J' => [0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0C],
        'K' => [0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11],
        'L' => [0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F],
        'M' => [0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11],
        'N' => [0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11],
        'O' => [0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E],
        'P' => [0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10],
        'Q' => [0x0E, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0D],
        'R' => [0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11],
        'S' => [0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E],
        'T' => [0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04],
        'U' => [0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E],
        'V' => [0x11, 0x11, 0x11, 0x11, 0x11, 0x0A, 0x04],
        'W' => [0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0A],
        'X' => [0x11, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x11],
        'Y' => [0x11, 0x11, 0x11, 0x0A, 0x04, 0x04, 0x04],
        'Z' => [0x1F, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1F],
        '0' => [0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E],
        '1' => [0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E],
        '2' => [0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F],
        '3' => [0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E],
        '4' => [0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02],
        '5' => [0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E],
        '6' => [0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E],
        '7' => [0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08],
        '8' => [0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E],
        '9' => [0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C],
        '.' => [0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C],
        ',' => [0x00, 0x00, 0x00, 0x00, 0x0C, 0x04, 0x08],
        ';' => [0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x04, 0x08],
        ':' => [0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x0C, 0x00],
        '-' => [0x00, 0x00, 0x00, 0x1F, 0x00, 0x00, 0x00],
        '=' => [0x00, 0x00, 0x1F, 0x00, 0x1F, 0x00, 0x00],
        '*' => [0x00, 0x04, 0x15, 0x0E, 0x15, 0x04, 0x00],
        '/' => [0x00, 0x01, 0x02, 0x04, 0x08, 0x10, 0x00],
        '(' => [0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02],
        ')' => [0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08],
        _ => [0; 7],
    }
}
