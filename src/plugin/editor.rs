//! egui widgets for editing terrain parameters (the height-vectors editor).
