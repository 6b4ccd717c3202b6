'use strict';
// js-greedy: a Hollywood Gin bot on Node.js that needs nothing of the arena's code,
// only the protocol: it loads bot.proto at run time with @grpc/proto-loader and
// serves hollywood.bot.v1.BotService with @grpc/grpc-js.
//
// Environment (see bot.proto, "Transport"):
//   HOLLYWOOD_BOT_SOCKET   Unix socket path to bind (how the arena runs it in a container)
//   HOLLYWOOD_BOT_ADDRESS  host:port to bind instead, used only when the socket is unset
//   HOLLYWOOD_PROTO_DIR    optional: the directory holding hollywood/bot/v1/bot.proto
//   HOLLYWOOD_BOT_SEED     accepted and ignored: greedy play is deterministic
// SIGTERM / SIGINT shut the server down and remove the socket file.

const fs = require('fs');
const path = require('path');

const PROTOCOL_VERSION = 1;
const PROTO_FILE = path.join('hollywood', 'bot', 'v1', 'bot.proto');
const SHUTDOWN_GRACE_MS = 1000;

function log(message) {
  process.stderr.write(`js-greedy: ${message}\n`);
}

function requireOrExplain(name) {
  try {
    return require(name);
  } catch (error) {
    log(`cannot load ${name} (${error.message}); run \`npm ci\` in ${__dirname} `
      + 'or put the package on NODE_PATH');
    process.exit(1);
  }
  return undefined; // unreachable
}

/**
 * The include directory holding hollywood/bot/v1/bot.proto: $HOLLYWOOD_PROTO_DIR, else
 * .hollywood/proto next to this file (the arena's image build context), else the
 * repository's proto/ found by walking up from here (local runs from a checkout).
 */
function findProtoDir() {
  const candidates = [];
  if (process.env.HOLLYWOOD_PROTO_DIR) candidates.push(process.env.HOLLYWOOD_PROTO_DIR);
  candidates.push(path.join(__dirname, '.hollywood', 'proto'));
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    candidates.push(path.join(dir, 'proto'));
    if (path.dirname(dir) === dir) break;
  }
  const found = candidates.find((dir) => fs.existsSync(path.join(dir, PROTO_FILE)));
  if (!found) {
    throw new Error(`${PROTO_FILE} not found; set HOLLYWOOD_PROTO_DIR (tried ${candidates.join(', ')})`);
  }
  return found;
}

/**
 * name / version / author from the top level of bot.toml (plain `key = "text"` lines);
 * the name and version the arena runs the bot as (HOLLYWOOD_BOT_NAME,
 * HOLLYWOOD_BOT_VERSION, set by every sandbox) come first.
 */
function readIdentity(folder, env = process.env) {
  const identity = { name: 'js-greedy', version: '0.0.0', author: '' };
  let text = '';
  try {
    text = fs.readFileSync(path.join(folder, 'bot.toml'), 'utf8');
  } catch (error) {
    if (!env.HOLLYWOOD_BOT_NAME) {
      log(`cannot read bot.toml (${error.message}); answering the handshake with defaults`);
    }
  }
  for (const line of text.split('\n')) {
    if (/^\s*\[/.test(line)) break; // tables start: the top-level keys are over
    const match = /^\s*(name|version|author)\s*=\s*"((?:[^"\\]|\\.)*)"/.exec(line);
    if (match) identity[match[1]] = JSON.parse(`"${match[2]}"`);
  }
  const name = (env.HOLLYWOOD_BOT_NAME || '').trim();
  const version = (env.HOLLYWOOD_BOT_VERSION || '').trim();
  if (name) identity.name = name;
  if (version) identity.version = version;
  return identity;
}

function listenTarget(env) {
  const socketPath = (env.HOLLYWOOD_BOT_SOCKET || '').trim();
  if (socketPath) return { target: `unix:${socketPath}`, socketPath };
  const address = (env.HOLLYWOOD_BOT_ADDRESS || '').trim();
  if (address) return { target: address, socketPath: null };
  throw new Error('set HOLLYWOOD_BOT_SOCKET (a Unix socket path) or HOLLYWOOD_BOT_ADDRESS (host:port)');
}

function serviceImplementation(grpc, decide, identity) {
  return {
    // Every Handshake starts a series: the arena may reuse this process for several
    // (docs/bot-guide.md, "Between series"). This bot decides from each request
    // alone and keeps nothing about an opponent, so it has nothing to forget here.
    Handshake(call, callback) {
      const spoken = call.request.protocol_version;
      if (spoken !== PROTOCOL_VERSION) {
        log(`the arena speaks protocol ${spoken}, this bot speaks ${PROTOCOL_VERSION}`);
      }
      callback(null, { ...identity, protocol_version: PROTOCOL_VERSION });
    },
    Decide(call, callback) {
      const request = call.request;
      let action;
      try {
        action = decide(request);
      } catch (error) {
        // A failed call forfeits the series; say why on stderr, whose tail the arena keeps.
        log(`decide failed at hand ${request.hand_number}, decision ${request.decision_number}: `
          + `${error.stack || error}`);
        callback({ code: grpc.status.UNKNOWN, details: `bot error: ${error.message || error}` });
        return;
      }
      // A debug note: shown to this bot's owner alone, beside the move (at most 256
      // bytes are kept; docs/bot-guide.md, "Debug notes").
      const debug = `greedy: ${action.kind} ${action.card}`.trim();
      callback(null, { action, debug });
    },
    HandEnded(call, callback) {
      callback(null, {});
    },
    SeriesEnded(call, callback) {
      callback(null, {});
    },
  };
}

function main() {
  const grpc = requireOrExplain('@grpc/grpc-js');
  const protoLoader = requireOrExplain('@grpc/proto-loader');
  const { decide } = require('./greedy');

  const protoDir = findProtoDir();
  const definition = protoLoader.loadSync(path.join(protoDir, PROTO_FILE), {
    includeDirs: [protoDir],
    keepCase: true, // field names exactly as in bot.proto: legal_actions, discard_pile
    enums: String, // 'PHASE_DISCARD', 'ACTION_KIND_KNOCK'
    longs: Number,
    defaults: true, // unset repeated fields arrive as [], strings as ''
  });
  const proto = grpc.loadPackageDefinition(definition).hollywood.bot.v1;
  const identity = readIdentity(__dirname);
  const { target, socketPath } = listenTarget(process.env);
  if (socketPath) fs.rmSync(socketPath, { force: true });

  const server = new grpc.Server();
  server.addService(proto.BotService.service, serviceImplementation(grpc, decide, identity));
  server.bindAsync(target, grpc.ServerCredentials.createInsecure(), (error, port) => {
    if (error) {
      log(`cannot listen on ${target}: ${error.message}`);
      process.exit(1);
    }
    log(`serving ${identity.name} ${identity.version} on ${socketPath ? target : `${target} (port ${port})`}`);
  });

  let stopping = false;
  const stop = (signal) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: shutting down`);
    const finish = () => {
      if (socketPath) fs.rmSync(socketPath, { force: true });
      process.exit(0);
    };
    const force = setTimeout(() => {
      server.forceShutdown();
      finish();
    }, SHUTDOWN_GRACE_MS);
    server.tryShutdown(() => {
      clearTimeout(force);
      finish();
    });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

if (require.main === module) {
  try {
    main();
  } catch (error) {
    log(error.stack || String(error));
    process.exit(1);
  }
}

module.exports = { findProtoDir, listenTarget, readIdentity };
