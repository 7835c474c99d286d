/**
 * The member roster: the keeper's reads and fenced writes (RosterKeeper,
 * RosterDecisions), everyone else's reads (RosterFollower), its placement as changes
 * (PlacementChanges), and the members as last read (MemberRoster).
 * <p>
 * Part of the engine: reached by no application (the build checks it).
 */
@NullMarked
package dev.membership.engine.roster;

import org.jspecify.annotations.NullMarked;
