#!/usr/bin/env node
// `coding-agent` as published: plain Node runs the built JavaScript, nothing compiles at start-up.
import "../dist/main.js";
