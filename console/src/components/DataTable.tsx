import { Fragment, type ReactNode } from "react";

/** One column of a <DataTable>: its heading, and what each row shows in it. */
export interface Column<Row> {
  header: string;
  /** Read by screen readers only (a column of buttons). */
  hideHeader?: boolean;
  /** The cell that names its row: a row header (`<th scope="row">`), bold in compact tables. */
  rowHeader?: boolean;
  cell: (row: Row) => ReactNode;
  cellClassName?: (row: Row) => string;
}

/**
 * The console's one table: columns declared as data, one row per item. On a narrow screen each row becomes a
 * card of "Heading: value" lines (styles.css, from each cell's data-label), so nothing scrolls sideways; the
 * explicit roles keep it a table to assistive technology whatever its display.
 * `detail` renders a full-width row under an item (an editor, a confirmation) when it answers something.
 */
export function DataTable<Row>({
  columns: dataColumns,
  actions,
  rows,
  rowKey,
  label,
  compact,
  rowLabel,
  detail,
}: {
  columns: Column<Row>[];
  /** A last column of buttons, its heading read by screen readers only. */
  actions?: (row: Row) => ReactNode;
  rows: readonly Row[];
  rowKey: (row: Row, index: number) => string;
  /** The table's accessible name. */
  label?: string;
  /** Dense cells, row headers in bold: the tables of records with buttons. */
  compact?: boolean;
  /** A row's accessible name, where its cells would make a poor one. */
  rowLabel?: (row: Row) => string;
  detail?: (row: Row) => ReactNode;
}) {
  const columns = actions ? [...dataColumns, { header: "Actions", hideHeader: true, cell: actions }] : dataColumns;
  return (
    <div className="table-scroll">
      <table role="table" className={compact ? "compact" : undefined} aria-label={label}>
        <thead>
          <tr role="row">
            {columns.map((column) => (
              <th key={column.header} scope="col" role="columnheader">
                {column.hideHeader ? <span className="visually-hidden">{column.header}</span> : column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, index) => {
            const more = detail?.(row);
            return (
              <Fragment key={rowKey(row, index)}>
                <tr role="row" aria-label={rowLabel?.(row)}>
                  {columns.map((column) =>
                    column.rowHeader ? (
                      <th key={column.header} scope="row" role="rowheader" className={column.cellClassName?.(row)}>
                        {column.cell(row)}
                      </th>
                    ) : (
                      <td
                        key={column.header}
                        role="cell"
                        className={column.cellClassName?.(row)}
                        data-label={column.hideHeader ? undefined : column.header}
                      >
                        {column.cell(row)}
                      </td>
                    ),
                  )}
                </tr>
                {more && (
                  <tr role="row" className="row-detail">
                    <td role="cell" colSpan={columns.length}>
                      {more}
                    </td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
