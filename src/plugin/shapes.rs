//! Procedural meshes for things on the ground (trees, features, buildings).
