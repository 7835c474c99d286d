/**
 * The engine: {@link dev.membership.engine.MembershipNode}, the way in without Spring,
 * with its settings and builder; everything else here is package-private, reached by no
 * application.
 */
@NullMarked
package dev.membership.engine;

import org.jspecify.annotations.NullMarked;
