#!/usr/bin/env node
import "../dist/cli/strongroom.js";
