// How attachments look in replies: their download address under the service's prefix, and a
// public address for images when UPLOAD_PUBLIC_IMAGES is on.
import { formatDisplay } from '../../../platform/time.ts';
import type { AttachmentView } from './attachments.service.ts';

export function renderAttachment(r: AttachmentView, o: { tz: string; prefix: string; publicImages: boolean }) {
  return {
    id: r.id,
    type: r.type,
    original_name: r.originalName,
    stored_name: r.storedName,
    extension: r.extension,
    size: r.size,
    content_type: r.contentType,
    sha256: r.sha256,
    uploaded_by: r.uploadedBy,
    uploader_name: r.uploaderName,
    created_at: formatDisplay(r.createdAt, o.tz)!,
    url: `${o.prefix}/attachments/${r.id}/download`,
    public_url: o.publicImages && r.type === 'image' ? `${o.prefix}/attachments/public/${r.storedName}` : null,
  };
}
