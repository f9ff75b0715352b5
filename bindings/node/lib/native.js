// SPDX-License-Identifier: Apache-2.0
'use strict';
/**
 * Loads the prebuilt addon for this platform. The package ships
 * `prebuilds/<platform>-<arch>/node.napi.glibc.node` (prebuildify's layout)
 * beside the `libweida.so.<ABI>` it links through an `$ORIGIN` rpath, and
 * node-gyp-build (bundled) picks the file that fits this process, so nothing
 * is compiled or downloaded at install time and no Go toolchain is needed.
 * Where no prebuild fits, or one fails to load (a damaged or mismatched
 * library), the error names this platform, what the package supports and
 * the versions involved.
 * @module weida/lib/native
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const nodeGypBuild = require('node-gyp-build');
const { version } = require('../package.json');

const root = path.join(__dirname, '..');

/** This process's platform as node-gyp-build sees it (npm_config_* override os). */
function here() {
  const platform = process.env.npm_config_platform || os.platform();
  const arch = process.env.npm_config_arch || os.arch();
  const libc = process.env.LIBC || (platform === 'linux' && fs.existsSync('/etc/alpine-release') ? 'musl' : 'glibc');
  return `${platform}-${arch} (${libc})`;
}

/** The platforms the package has prebuilds for, e.g. "linux-arm64, linux-x64". */
function supported() {
  let dirs = [];
  try {
    dirs = fs.readdirSync(path.join(root, 'prebuilds')).sort();
  } catch {
    // no prebuilds at all: said below
  }
  return dirs.length ? `${dirs.join(', ')} with glibc 2.31 or later` : 'nothing (it has no prebuilds/)';
}

/** The library a prebuild links, e.g. "libweida.so.1 (C ABI 1)". */
function linkedLibrary(file) {
  const lib = fs.readdirSync(path.dirname(file)).find((name) => /^libweida\.so\.\d+$/.test(name));
  return lib ? `${lib} (C ABI ${lib.split('.').pop()})` : 'a libweida.so.<ABI> beside it, which is missing';
}

function load() {
  let file;
  try {
    file = nodeGypBuild.resolve(root);
  } catch (error) {
    throw new Error(`weida ${version}: no prebuilt addon for ${here()}; this package supports ${supported()}`, {
      cause: error,
    });
  }
  try {
    return require(file);
  } catch (error) {
    throw new Error(
      `weida ${version}: cannot load the addon ${file}, which needs ${linkedLibrary(file)}: ${error.message}`,
      { cause: error },
    );
  }
}

module.exports = load();
