/* global module, process */
// `node:http` for bundled code (infra/bundle.ts aliases every import of it here): the CommonJS module itself. An ES
// import of it makes Node build a module facade, which reads every export, WebSocket's lazy getter included, and
// that loads undici: about 12 ms of each cold start for nothing (nodejs/node#59686).
module.exports = process.getBuiltinModule('node:http');
