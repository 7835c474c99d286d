/**
 * One unit's election as a named state machine (GroupElection, HoldOff, TermEnd), the
 * units of the node (Units), what is known of other nodes' leadership (LeaderKnowledge),
 * and what the node tells of a term (UnitEvents, OutgoingNotices).
 * <p>
 * Part of the engine: reached by no application (the build checks it).
 */
@NullMarked
package dev.membership.engine.election;

import org.jspecify.annotations.NullMarked;
