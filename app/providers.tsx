'use client';
/**
 * Client-side providers for every page: one QueryClient per browser session (created in state
 * so a re-render never replaces it), the live event stream, the operator key (kept in this
 * browser only) and the host of the operator action dialogs.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { ApiError } from '@/lib/client/api';
import { LiveProvider } from '@/lib/client/live';
import { KeyProvider } from '@/lib/client/operator';
import { ActionsProvider } from '@/components/actions/ActionsProvider';

function makeQueryClient() {
  return new QueryClient({
    defaultOptions: {
      queries: {
        // Live events invalidate what changed; a short staleTime avoids refetch storms on focus.
        staleTime: 5_000,
        refetchOnWindowFocus: true,
        // A 4xx will not get better by asking again (404: no such order); a 5xx or network error may.
        retry: (count, err) => !(err instanceof ApiError && err.status < 500) && count < 3,
      },
    },
  });
}

export function Providers({ children }: { children: ReactNode }) {
  const [client] = useState(makeQueryClient);
  return (
    <QueryClientProvider client={client}>
      <LiveProvider>
        <KeyProvider>
          <ActionsProvider>{children}</ActionsProvider>
        </KeyProvider>
      </LiveProvider>
    </QueryClientProvider>
  );
}
