// Captcha images: letters drawn as SVG paths from svg-captcha's bundled font (no system fonts
// needed), rendered to PNG by resvg. Each glyph is placed by its own measured outline, so none
// is cut at an edge, and the alphabet leaves out characters that look alike once the case is
// ignored (the answer is compared without case): no 0/O/D/Q, 1/I/J/L, S/5/3, 2/Z, 8/B, 6/G, 7/T;
// and no A either (a/d/q); only capitals are drawn.
import { randomInt } from 'node:crypto';
import type { Resvg as ResvgClass } from '@resvg/resvg-js';

/** The characters a captcha is made of (all drawn as capitals). */
export const CAPTCHA_ALPHABET = 'CEFHKMNPRTUVWXY49';
export const CAPTCHA_LENGTH = 4;
/** Natural size of the picture in CSS pixels; the console shows it at this size. */
export const CAPTCHA_WIDTH = 168;
export const CAPTCHA_HEIGHT = 56;
/** No glyph comes nearer than this to an edge. */
export const CAPTCHA_MARGIN = 4;
const FONT_SIZE = 50;
const BACKGROUND = '#f4f6f9';
/** Glyphs are outlined as well as filled (bolder strokes read better at this size). */
const STROKE = 1.4;

interface PathCommand {
  type: string;
  x?: number;
  y?: number;
  x1?: number;
  y1?: number;
  x2?: number;
  y2?: number;
}
interface GlyphPath {
  commands: PathCommand[];
  getBoundingBox(): { x1: number; y1: number; x2: number; y2: number };
  toPathData(decimals?: number): string;
}
interface Font {
  charToGlyph(ch: string): { getPath(x: number, y: number, size: number): GlyphPath };
}
// svg-captcha's font (opentype.js) and the renderer, loaded on the first captcha (about 2.5 MB of
// heap and a native library that an idle server does without). svg-captcha's typings do not name
// its font.
let drawing: Promise<{ font: Font; Resvg: typeof ResvgClass }> | undefined;
const loadDrawing = () => drawing ??= Promise.all([import('svg-captcha'), import('@resvg/resvg-js')])
  .then(([svgCaptcha, resvg]) => ({ font: (svgCaptcha.default.options as unknown as { font: Font }).font, Resvg: resvg.Resvg }));

export interface GlyphBox {
  char: string;
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

export interface Captcha {
  /** The answer, as drawn (capitals). Compare it without case. */
  text: string;
  png: Buffer;
  width: number;
  height: number;
  /** Where each glyph's outline ended up (for tests: inside the picture, with a margin). */
  glyphs: GlyphBox[];
}

const rnd = (min: number, max: number) => min + (randomInt(0, 1_000_001) / 1_000_000) * (max - min);

/** Moves every point of `path` by rotating `angle` radians about (cx, cy), then shifting (dx, dy). */
function transform(path: GlyphPath, cx: number, cy: number, angle: number, dx: number, dy: number) {
  const cos = Math.cos(angle);
  const sin = Math.sin(angle);
  const move = (x: number, y: number): [number, number] => [
    cx + (x - cx) * cos - (y - cy) * sin + dx,
    cy + (x - cx) * sin + (y - cy) * cos + dy,
  ];
  for (const c of path.commands) {
    if (c.x !== undefined && c.y !== undefined) [c.x, c.y] = move(c.x, c.y);
    if (c.x1 !== undefined && c.y1 !== undefined) [c.x1, c.y1] = move(c.x1, c.y1);
    if (c.x2 !== undefined && c.y2 !== undefined) [c.x2, c.y2] = move(c.x2, c.y2);
  }
}

/** Dark, saturated colours: each glyph a different hue, all well above the background's contrast. */
function glyphColour(): string {
  return `hsl(${randomInt(0, 360)}, ${randomInt(55, 80)}%, ${randomInt(22, 34)}%)`;
}

export function randomCaptchaText(): string {
  let text = '';
  for (let i = 0; i < CAPTCHA_LENGTH; i++) text += CAPTCHA_ALPHABET[randomInt(0, CAPTCHA_ALPHABET.length)];
  return text;
}

/** Draws `text` (default: a random one from CAPTCHA_ALPHABET) as a PNG. */
export async function renderCaptcha(text = randomCaptchaText()): Promise<Captcha> {
  const { font, Resvg } = await loadDrawing();
  const width = CAPTCHA_WIDTH;
  const height = CAPTCHA_HEIGHT;
  const slot = (width - 2 * CAPTCHA_MARGIN) / text.length;
  const glyphs: GlyphBox[] = [];
  const shapes: string[] = [];
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    const path = font.charToGlyph(char).getPath(0, 0, FONT_SIZE);
    const own = path.getBoundingBox();
    // Tilt it a little about its own centre, then place its tilted outline (stroke included) in
    // its slot at a random offset, never across the picture's margin.
    transform(path, (own.x1 + own.x2) / 2, (own.y1 + own.y2) / 2, rnd(-0.25, 0.25), 0, 0);
    const box = path.getBoundingBox();
    // The stroke paints half its width outside the outline.
    const w = box.x2 - box.x1 + STROKE;
    const h = box.y2 - box.y1 + STROKE;
    const left = CAPTCHA_MARGIN + i * slot;
    const x = Math.min(left + Math.max(0, slot - w) * rnd(0.3, 0.7), width - CAPTCHA_MARGIN - w);
    const y = CAPTCHA_MARGIN + Math.max(0, height - 2 * CAPTCHA_MARGIN - h) * rnd(0.25, 0.75);
    transform(path, 0, 0, 0, x + STROKE / 2 - box.x1, y + STROKE / 2 - box.y1);
    const placed = path.getBoundingBox();
    glyphs.push({ char, x1: placed.x1 - STROKE / 2, y1: placed.y1 - STROKE / 2, x2: placed.x2 + STROKE / 2, y2: placed.y2 + STROKE / 2 });
    const colour = glyphColour();
    shapes.push(`<path fill="${colour}" stroke="${colour}" stroke-width="${STROKE}" stroke-linejoin="round" d="${path.toPathData(2)}"/>`);
  }
  // Two thin, light curves across the picture: noise that a reader looks through.
  const noise: string[] = [];
  for (let i = 0; i < 2; i++) {
    const y = () => rnd(height * 0.2, height * 0.8).toFixed(1);
    noise.push(
      `<path d="M2 ${y()} C${(width / 3).toFixed(1)} ${y()},${((2 * width) / 3).toFixed(1)} ${y()},${width - 2} ${y()}" ` +
      `stroke="hsl(${randomInt(0, 360)}, 35%, 72%)" stroke-width="1.5" fill="none"/>`,
    );
  }
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">` +
    `<rect width="100%" height="100%" fill="${BACKGROUND}"/>${noise.join('')}${shapes.join('')}</svg>`;
  const png = new Resvg(svg, { background: BACKGROUND, fitTo: { mode: 'original' } }).render().asPng();
  return { text, png, width, height, glyphs };
}
