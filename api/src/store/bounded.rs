//! `bounded!`: each store method bounded in time (`Deadline::run`) written once. A trait's
//! methods that only pass a call through are listed by their signature and whether they write
//! (`read` or `write`: a write not answered in time may have committed); any method that does
//! more is written out after them, as in any impl.

/// Implements `$store` for `Deadline<S>`: every listed method calls the inner store's method
/// of the same name with the same arguments, bounded in time and in a `store` span naming it.
macro_rules! bounded {
    (
        impl $store:ident {
            $( $kind:ident fn $name:ident(&self $(, $arg:ident : $ty:ty)* $(,)?) -> $out:ty; )*
        }
        $($extra:item)*
    ) => {
        #[async_trait::async_trait]
        impl<S: EventStore> $store for Deadline<S> {
            $(
                async fn $name(&self $(, $arg: $ty)*) -> Result<$out, StoreError> {
                    self.run(
                        stringify!($name),
                        bounded!(@writes $kind),
                        self.inner.$name($($arg),*),
                    )
                    .await
                }
            )*
            $($extra)*
        }
    };
    (@writes read) => {
        false
    };
    (@writes write) => {
        true
    };
}
