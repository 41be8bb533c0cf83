// Reading the site's QR code: continuously from the camera (a <video> the caller shows), or once
// from a photo. Camera frames are decoded a few times a second in a worker (decode.worker.ts)
// where the browser can, otherwise on the page between frames; see qr.ts for the decoders.
import { decode, FRAME_PX } from './qr.ts';

const canvas = () => document.createElement('canvas');

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

interface FrameReader {
  read(video: HTMLVideoElement): Promise<string | null>;
  close(): void;
}

/** Frames decoded on the page (browsers without workers that can draw, or when the worker failed). */
function pageReader(): FrameReader {
  const work = canvas();
  return { read: (video) => decode(video, video.videoWidth, video.videoHeight, work, false), close: () => undefined };
}

/** Frames scaled down by the browser and decoded in the worker; null when the browser cannot. */
function workerReader(): FrameReader | null {
  if (typeof Worker === 'undefined' || typeof OffscreenCanvas === 'undefined' || typeof createImageBitmap !== 'function') return null;
  let worker: Worker;
  try {
    worker = new Worker(new URL('./decode.worker.ts', import.meta.url), { type: 'module' });
  } catch {
    return null;
  }
  return {
    async read(video) {
      const scale = Math.min(1, FRAME_PX / Math.max(video.videoWidth, video.videoHeight));
      const frame = await createImageBitmap(video, { resizeWidth: Math.round(video.videoWidth * scale), resizeHeight: Math.round(video.videoHeight * scale) });
      return new Promise<string | null>((resolve, reject) => {
        worker.onmessage = (e: MessageEvent<string | null>) => resolve(e.data);
        worker.onerror = () => reject(new Error('the QR decoding worker failed'));
        worker.postMessage(frame, [frame]);
      });
    },
    close: () => worker.terminate(),
  };
}

/**
 * Reads a frame of the playing `video` every `everyMs()` until `signal` aborts, calling `onCode`
 * with the text of every code seen (the same code again each time it is still in view).
 */
export async function readVideo(video: HTMLVideoElement, onCode: (text: string) => void, signal: AbortSignal, everyMs: () => number): Promise<void> {
  let reader = workerReader() ?? pageReader();
  try {
    while (!signal.aborted) {
      const started = performance.now();
      if (video.readyState >= 2 && video.videoWidth > 0) {
        const text = await reader.read(video).catch(() => {
          // The worker could not run (a browser refusing module workers, say): on the page from now on.
          reader.close();
          reader = pageReader();
          return null;
        });
        if (text && !signal.aborted) onCode(text);
      }
      await new Promise((r) => setTimeout(r, Math.max(0, everyMs() - (performance.now() - started))));
    }
  } finally {
    reader.close();
  }
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
