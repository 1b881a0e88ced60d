//! Tests of the planar street generator.
