export const strings = {
  'en-US': {
    upload: 'Upload a file', uploadChunked: 'Upload a large file', uploadHint: 'Images (png, jpg, jpeg, gif, webp), documents (pdf, docx, xlsx, pptx, doc, xls, txt, csv) and videos (mp4, mov, webm). Large files go in chunks: they can be paused, and resumed even after the page is reloaded.',
    uploading: 'Uploading {{name}}', uploaded: '{{name}} uploaded', paused: 'Paused', resuming: 'Continuing the earlier upload of {{name}}',
    pause: 'Pause', resume: 'Resume', cancel: 'Cancel upload', unsupported: 'Files of this kind cannot be uploaded: {{name}}',
    pending: 'Unfinished uploads', pendingHint: 'Choose the same file again with "Upload a large file" to continue where it stopped.',
    discard: 'Discard', progressLabel: 'Upload progress of {{name}}',
    recent: 'Uploaded in this visit', list: 'Files', name: 'File name', type: 'Type', size: 'Size', contentType: 'Content type',
    uploader: 'Uploader', preview: 'Preview', noView: 'You may upload files; listing every file needs another permission.',
    image: 'Image', document: 'Document', video: 'Video',
  },
  'zh-CN': {
    upload: '上传文件', uploadChunked: '上传大文件', uploadHint: '支持图片（png、jpg、jpeg、gif、webp）、文档（pdf、docx、xlsx、pptx、doc、xls、txt、csv）和视频（mp4、mov、webm）。大文件分片上传：可暂停，刷新页面后也能继续。',
    uploading: '正在上传 {{name}}', uploaded: '{{name}} 已上传', paused: '已暂停', resuming: '继续之前未完成的 {{name}} 上传',
    pause: '暂停', resume: '继续', cancel: '取消上传', unsupported: '不支持上传此类文件：{{name}}',
    pending: '未完成的上传', pendingHint: '通过“上传大文件”再次选择同一个文件，即可从中断处继续。',
    discard: '丢弃', progressLabel: '{{name}} 的上传进度',
    recent: '本次上传的文件', list: '文件', name: '文件名', type: '类型', size: '大小', contentType: '内容类型',
    uploader: '上传者', preview: '预览', noView: '您可以上传文件；查看全部文件需要其他权限。',
    image: '图片', document: '文档', video: '视频',
  },
};
