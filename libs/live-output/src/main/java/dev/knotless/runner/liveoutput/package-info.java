/**
 * Live output: what of a run's log goes to the appview while the run prints it (whole masked lines,
 * pieces of at most 16,000 bytes, a hold of a megabyte for failed sends), and when. Pure decisions;
 * the service or runner supplies the log bytes and the sender.
 */
package dev.knotless.runner.liveoutput;
