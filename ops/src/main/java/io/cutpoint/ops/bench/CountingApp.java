package io.cutpoint.ops.bench;

import io.cutpoint.client.MessageHandler;
import io.cutpoint.client.StateHandler;

/** A benchmark application: handlers plus the count of messages it received. */
interface CountingApp extends StateHandler, MessageHandler {

  long received();
}
