// Reading the site's QR code: from the camera (a <video> the caller shows) or from a photo. The
// browser's BarcodeDetector where it reads QR codes; otherwise jsqr on frames drawn to a canvas,
// loaded only when first needed so that it is not part of the app's first download.

import type jsQR from 'jsqr';

type JsQR = typeof jsQR;

interface Detector {
  detect(source: CanvasImageSource | ImageBitmap): Promise<{ rawValue: string }[]>;
}
interface DetectorClass {
  new (options: { formats: string[] }): Detector;
  getSupportedFormats?: () => Promise<string[]>;
}

let detector: Promise<Detector | null> | null = null;

/** The browser's QR detector, or null when it has none for QR codes. */
function nativeDetector(): Promise<Detector | null> {
  return (detector ??= (async () => {
    const D = (globalThis as unknown as { BarcodeDetector?: DetectorClass }).BarcodeDetector;
    if (!D) return null;
    try {
      const formats = D.getSupportedFormats ? await D.getSupportedFormats() : ['qr_code'];
      return formats.includes('qr_code') ? new D({ formats: ['qr_code'] }) : null;
    } catch {
      return null;
    }
  })());
}

let jsqr: Promise<JsQR> | null = null;
const loadJsqr = () => (jsqr ??= import('jsqr').then((m) => m.default));

/** Starts loading the decoder the browser will need (call when the scanner opens). */
export function prepareDecoder(): void {
  void nativeDetector().then((d) => (d ? undefined : loadJsqr()));
}

const canvas = () => document.createElement('canvas');

/** Decodes a QR code from an image, a video frame or a bitmap; null when none is seen. */
async function decode(source: HTMLVideoElement | ImageBitmap | HTMLImageElement, width: number, height: number, work: HTMLCanvasElement, thorough: boolean): Promise<string | null> {
  const native = await nativeDetector();
  if (native) {
    try {
      const found = await native.detect(source);
      if (found[0]?.rawValue) return found[0].rawValue;
      return null;
    } catch {
      // Some implementations refuse some sources: decode the pixels instead.
    }
  }
  const decodeQr = await loadJsqr();
  // Large pictures are scaled down: jsqr finds a code filling part of the frame just as well on
  // fewer pixels (camera frames: 640 px; photos: 1000 px).
  const scale = Math.min(1, (thorough ? 1000 : 640) / Math.max(width, height));
  const w = Math.max(1, Math.round(width * scale));
  const h = Math.max(1, Math.round(height * scale));
  work.width = w;
  work.height = h;
  const g = work.getContext('2d', { willReadFrequently: true });
  if (!g) return null;
  g.drawImage(source, 0, 0, w, h);
  const pixels = g.getImageData(0, 0, w, h);
  // Camera frames come many times a second: the quick pass (dark code on light paper); a photo
  // is decoded once: also inverted codes.
  return decodeQr(pixels.data, w, h, { inversionAttempts: thorough ? 'attemptBoth' : 'dontInvert' })?.data || null;
}

/** Opens the back camera into `video`; resolves with a stop function. */
export async function startCamera(video: HTMLVideoElement): Promise<() => void> {
  if (!navigator.mediaDevices?.getUserMedia) throw new Error('no camera API');
  const stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: { ideal: 'environment' } }, audio: false });
  video.srcObject = stream;
  video.muted = true;
  video.setAttribute('playsinline', '');
  await video.play().catch(() => undefined);
  return () => {
    for (const track of stream.getTracks()) track.stop();
    video.srcObject = null;
  };
}

/**
 * Reads frames from the playing `video` until a QR code is seen (resolves with its text) or
 * `signal` aborts (resolves with null).
 */
export async function scanVideo(video: HTMLVideoElement, signal: AbortSignal): Promise<string | null> {
  const work = canvas();
  while (!signal.aborted) {
    if (video.readyState >= 2 && video.videoWidth > 0) {
      const text = await decode(video, video.videoWidth, video.videoHeight, work, false);
      if (text && !signal.aborted) return text;
    }
    await new Promise((r) => setTimeout(r, 40));
  }
  return null;
}

/** Reads a QR code from a photo file; null when there is none. */
export async function scanFile(file: File): Promise<string | null> {
  const work = canvas();
  if (typeof createImageBitmap === 'function') {
    const bitmap = await createImageBitmap(file);
    try {
      return await decode(bitmap, bitmap.width, bitmap.height, work, true);
    } finally {
      bitmap.close();
    }
  }
  const url = URL.createObjectURL(file);
  try {
    const img = new Image();
    img.src = url;
    await img.decode();
    return await decode(img, img.naturalWidth, img.naturalHeight, work, true);
  } finally {
    URL.revokeObjectURL(url);
  }
}
