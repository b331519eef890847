// Renders at most once per animation frame: a burst of streamed events (message.delta) costs one render, not one each.
import { options } from 'preact';

options.debounceRendering = (render) => requestAnimationFrame(render);
