export const strings = {
  'en-US': {
    paymentNo: 'Payment number', orderNo: 'Order number', method: 'Payment method', userId: 'User ID', amount: 'Amount',
    paidAt: 'Paid at', status: { pending: 'Pending', paid: 'Paid', failed: 'Failed', cancelled: 'Cancelled' },
    detailTitle: 'Payment {{no}}', orderDeleted: 'order deleted', idRule: 'A positive integer', readOnly: 'Payment records are written when an order is marked paid; they cannot be edited.',
    orderId: 'Order ID',
  },
  'zh-CN': {
    paymentNo: '支付单号', orderNo: '订单号', method: '支付方式', userId: '用户 ID', amount: '金额',
    paidAt: '支付时间', status: { pending: '待支付', paid: '已支付', failed: '失败', cancelled: '已取消' },
    detailTitle: '支付记录 {{no}}', orderDeleted: '订单已删除', idRule: '正整数', readOnly: '支付记录在订单标记为已支付时生成，不可编辑。',
    orderId: '订单 ID',
  },
};
