pub mod descriptive;
