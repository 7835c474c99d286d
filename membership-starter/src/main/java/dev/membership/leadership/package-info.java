/**
 * Leadership as leader code sees it: the term and its context, who leads a group, and the
 * events of a group's leadership.
 */
@NullMarked
package dev.membership.leadership;

import org.jspecify.annotations.NullMarked;
