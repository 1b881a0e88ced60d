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
    for p in [from, to] {
        let h = terrain.height(p.x, p.y); // NaN for a point off the world
        if h.is_nan() || h < terrain.params().lake_level {
            return Err(format!("({}, {}) is in a lake: pick a dry point", p.x, p.y));
        }
    }

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
    img.rect(0, 0, img.w, img.h, [40, 40, 44]);
    let pair = format!("({:.0},{:.0}) TO ({:.0},{:.0})", from.x, from.y, to.x, to.y);
    let (direct, wide) = (from.distance(to) / 1e3, 2.0 * half / 1e3);
    let header = format!(
        "ROAD PLANNERS (LOBKER 2013 CH. 8) ON TERRAIN::DEFAULT: {pair}, {direct:.2} KM DIRECT; \
         EACH PANEL {wide:.1} KM WIDE, NORTH UP"
    );
    img.text(gap + 2, 5, &header, scale, [235, 235, 235]);
    println!(
        "{}: {direct:.2} km direct, {mpp:.1} m/px",
        pair.to_lowercase()
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
                    // The display spline (smoothing is on by default), cased in black.
                    let colour = [[230, 40, 30], [200, 20, 200]][row];
                    relief.polyline(&mut img, x0, y0, &r.smoothed, scale + 2, [20, 20, 20]);
                    relief.polyline(&mut img, x0, y0, &r.smoothed, scale, colour);
                    let km = r.length() / 1e3;
                    format!("{km:.2} KM  COST {:.0}  {best:.1} MS", r.cost)
                }
                Err(e) => {
                    println!("{pname:<11} {sname:<14} failed: {e}");
                    "NO ROAD".to_string()
                }
            };
            // End points: white discs ringed in black.
            for p in [from, to] {
                let (px, py) = relief.pixel(p);
                let at = (x0 as f64 + px, y0 as f64 + py);
                for (r, c) in [(3.0, [20; 3]), (2.0, [255; 3])] {
                    img.disc(at.0, at.1, r * scale as f64, c, (x0, y0, size));
                }
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

    /// Image position (x right, y down, in pixels) of a world point, from
    /// the panel's top-left corner; pixel `(c, r)` spans `[c, c + 1) × [r, r + 1)`.
    fn pixel(&self, p: DVec2) -> (f64, f64) {
        let q = (p - self.origin) / self.mpp;
        (q.x, self.size as f64 - q.y)
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
                img.disc(x0 as f64 + x, y0 as f64 + y, r as f64 * 0.5 + 0.5, c, clip);
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

    /// A filled disc, only inside the square `(x, y, size)`.
    fn disc(&mut self, cx: f64, cy: f64, r: f64, c: [u8; 3], clip: (usize, usize, usize)) {
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

/// A 5 × 7 font (after the HD44780's): per glyph its character, then its
/// seven rows, top first, as two hex digits each (bit 4 the left column).
/// Upper case, digits and a little punctuation; anything else is blank.
const FONT: &str = concat!(
    "A0E1111111F1111B1E11111E11111EC0E11101010110ED1C12111111121CE1F10101E10101F",
    "F1F10101E101010G0E11101711110FH1111111F111111I0E04040404040EJ0702020202120C",
    "K11121418141211L1010101010101FM111B1515111111N11111915131111O0E11111111110E",
    "P1E11111E101010Q0E11111115120DR1E11111E141211S0F10100E01011ET1F040404040404",
    "U1111111111110EV11111111110A04W1111111515150AX11110A040A1111Y1111110A040404",
    "Z1F01020408101F00E11131519110E1040C040404040E20E11010204081F31F02040201110E",
    "402060A121F020251F101E0101110E60608101E11110E71F01020408080880E11110E11110E",
    "90E11110F01020C.00000000000C0C,000000000C0408;000C0C000C0408:000C0C000C0C00",
    "-0000001F000000=00001F001F0000*0004150E150400/00010204081000(02040808080402",
    ")08040202020408",
);

fn glyph(c: char) -> [u8; 7] {
    let mut rows = [0; 7];
    if let Some(at) = FONT.as_bytes().chunks(15).position(|g| g[0] == c as u8) {
        let hex = &FONT[at * 15 + 1..at * 15 + 15];
        for (k, row) in rows.iter_mut().enumerate() {
            *row = u8::from_str_radix(&hex[2 * k..2 * k + 2], 16).unwrap_or(0);
        }
    }
    rows
}
