/**
 * `@tot/core/viewer`: a recorded run as one self-contained HTML page, or served on localhost and
 * followed while it goes ({@link serveRunViewer}).
 *
 * @packageDocumentation
 */
export { renderRunHtml, type RenderRunHtmlOptions } from './render-run-html.js';
export type { RunView, ViewCall, ViewNode, ViewPanel, ViewQuestion } from './view-model.js';
export { viewRun } from './view-run.js';
export { serveRunViewer, type RunViewerServer, type RunViewerServerOptions } from './run-viewer-server.js';
