package io.cutpoint.client;

/**
 * The identity of one inbound stream of a channel (one {@code Channel.Open} call, or a simulated
 * connection). The worker core compares links by identity and names them in its effects; only the
 * transport knows what is behind one.
 */
interface InboundLink {}
